package uselite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
)

// OpenDefault returns mnemo's default embedder: use-lite when its weights
// are installed in the models directory ($MNEMO_MODELS, read through
// getenv, else <user cache dir>/mnemo/models), else recall.HashEmbedder (hash-384,
// lexical-level). A nil getenv means os.Getenv.
//
// It returns an error, and no embedder, only when use-lite is installed but
// cannot be loaded (ErrBadModel, or a read error): a damaged install is
// reported, never silently replaced by hash-384. Each call loads the
// weights (about 0.1–0.2 s and 30 MB); callers that open many engines
// should open once and share the Embedder, which is safe for concurrent use.
func OpenDefault(getenv func(string) string) (recall.Embedder, error) {
	root, err := models.Dir(getenv)
	if err != nil {
		return recall.HashEmbedder{}, nil // no models directory: nothing is installed
	}
	dir := models.Path(root, ID)
	if _, err := os.Stat(filepath.Join(dir, ModelFile)); errors.Is(err, fs.ErrNotExist) {
		return recall.HashEmbedder{}, nil
	}
	e, err := Open(Config{Dir: dir})
	if err != nil {
		return nil, fmt.Errorf("default embedder: %w", err)
	}
	return e, nil
}
