package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// loadEmbedderID opens an engine with the default embedder, recalls once and
// returns memctx.retrieval.embedder.
func loadEmbedderID(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	toolThread(t, e, "t-"+filepath.Base(t.TempDir()))
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "other", ResourceID: "r", Query: "shipping quote for crate B",
		Recall: &recall.Options{TopK: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return c.MemCtx.Retrieval.Embedder
}

func TestDefaultEmbedder(t *testing.T) {
	dir := t.TempDir()
	if got := loadEmbedderID(t, dir); got != recall.HashID {
		t.Fatalf("without use-lite installed the default is %q, want %q", got, recall.HashID)
	}
	if _, err := os.Stat(filepath.Join(models.Path(realModelsDir, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite weights not installed in %s (mnemo models fetch use-lite): %v", realModelsDir, err)
	}
	t.Setenv(models.EnvDir, realModelsDir)
	// The same data directory, reopened with use-lite: its messages are
	// embedded again through the outbox and recall names the new embedder.
	if got := loadEmbedderID(t, dir); got != uselite.ID {
		t.Fatalf("with use-lite installed the default is %q, want %q", got, uselite.ID)
	}
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(context.Background()); err != nil {
		t.Fatalf("after switching embedders: %v", err)
	}
}
