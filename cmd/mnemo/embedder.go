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
		cfg := uselite.Config{Dir: models.Path(dir, uselite.ID)}
		if m.embedsNothing() {
			return uselite.OpenLazy(cfg), nil
		}
		return uselite.Open(cfg)
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

// embedsNothing reports whether the running command embeds nothing of its
// own: it appends, searches and loads no context (a listing, an export, a
// check, an erasure, working memory). Its engine is opened with
// engine.Config.LazyEmbedder: the directory's embedder is loaded only if
// its outbox drainer has messages to embed, and a --embedder other than
// the directory's is not refused (it is not used; openai is not even
// built unless the directory was embedded with one, or records none and
// the command does not only read: Main.buildEmbedder). The
// commands that embed (ingest, search, context, reindex, serve, mcp,
// demo, bench, eval) and salvage load it at open and refuse a mismatching
// --embedder before writing anything.
func (m *Main) embedsNothing() bool {
	switch m.command {
	case "threads", "messages", "memctx", "runs", "replay", "delete", "expire", "wm",
		"export", "check", "vacuum", "observe", "observations":
		return true
	}
	return false
}
