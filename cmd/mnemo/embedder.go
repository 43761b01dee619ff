package main

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// embedderNames lists the embedders a command can name.
const embedderNames = recall.HashID + ", " + uselite.ID + " or openai"

// knownEmbedder reports whether name is an embedder mnemo can build (or,
// with auto, "" or "auto": the directory's recorded one).
func knownEmbedder(name string, auto bool) bool {
	switch name {
	case recall.HashID, uselite.ID, "openai":
		return true
	case "", "auto":
		return auto
	}
	return false
}

// embedderNamed returns the embedder a command asked for.
func (m *Main) embedderNamed(ctx context.Context, name string) (recall.Embedder, error) {
	switch name {
	case "", recall.HashID:
		return recall.HashEmbedder{}, nil
	case uselite.ID:
		dir, err := m.modelsDir()
		if err != nil {
			return nil, err
		}
		return uselite.Open(uselite.Config{Dir: models.Path(dir, uselite.ID)})
	case "openai":
		cfg, err := recall.OpenAIConfigFromEnv(m.Getenv)
		if err != nil {
			return nil, err
		}
		if err := needKey("the openai embedder ("+recall.EnvEmbedModel+"="+cfg.Model+")", cfg.BaseURL, cfg.APIKey, recall.EnvOpenAIBaseURL, recall.EnvOpenAIAPIKey); err != nil {
			return nil, err
		}
		return recall.NewOpenAIEmbedder(ctx, cfg)
	}
	return nil, fmt.Errorf("unknown embedder %q (want %s, %s or openai)", name, recall.HashID, uselite.ID)
}
