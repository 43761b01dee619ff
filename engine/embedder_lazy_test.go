package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// TestLazyEmbedderOpen: with Config.LazyEmbedder, Open on a directory
// recorded with use-lite loads nothing: it succeeds with use-lite's
// weights absent (before, an *EmbedderMismatchError: a read-only command
// such as mnemo threads failed, and with the weights installed paid their
// load, about 2 s and 70 MB), the embedder is not loaded after Open and a
// read, and its first Embed fails with an error matching both
// ErrEmbedderMismatch and uselite.ErrNotInstalled. A Config.Embedder of
// another id is not refused but not used, and the record is unchanged.
// Without LazyEmbedder both refusals stay.
func TestLazyEmbedderOpen(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		fake := paddedEmbedder{id: uselite.ID, dims: uselite.Dims}
		e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: fake}))
		if err != nil {
			t.Fatal(err)
		}
		toolThread(t, e, "t1")
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		e.Close()
		t.Setenv(models.EnvDir, t.TempDir()) // use-lite not installed

		_, err = engine.Open(ctx, st.Config(engine.Config{}))
		if !errors.Is(err, engine.ErrEmbedderMismatch) || !errors.Is(err, uselite.ErrNotInstalled) {
			t.Fatalf("eager open without use-lite: %v, want ErrEmbedderMismatch and uselite.ErrNotInstalled", err)
		}
		_, err = engine.Open(ctx, st.Config(engine.Config{Embedder: recall.HashEmbedder{}}))
		if !errors.Is(err, engine.ErrEmbedderMismatch) {
			t.Fatalf("eager open with hash-384: %v, want ErrEmbedderMismatch", err)
		}

		for _, given := range []recall.Embedder{nil, recall.HashEmbedder{}} {
			e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: given, LazyEmbedder: true}))
			if err != nil {
				t.Fatalf("lazy open (given %v) without use-lite: %v", given, err)
			}
			lazyReads(t, e)
			e.Close()
		}
		// The record is still use-lite: an eager open with it is not refused.
		e, err = engine.Open(ctx, st.Config(engine.Config{Embedder: fake}))
		if err != nil {
			t.Fatalf("eager open with the recorded embedder after lazy opens: %v", err)
		}
		e.Close()
	})
}

// lazyReads checks e's embedder is use-lite not loaded after Open and a
// read, and that embedding fails, typed, without use-lite installed.
func lazyReads(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	emb := e.Embedder()
	lazy := recall.Lazy(emb)
	if emb.ID() != uselite.ID || emb.Dims() != uselite.Dims || lazy == nil {
		t.Fatalf("embedder %s (%d dims, %T), want use-lite unloaded", emb.ID(), emb.Dims(), emb)
	}
	if _, ok := emb.(recall.InProcess); !ok {
		t.Error("the lazy use-lite is not recall.InProcess")
	}
	if th, err := e.ListThreads(ctx, "r"); err != nil || len(th) != 1 {
		t.Fatalf("ListThreads: %v, %v", th, err)
	}
	if lazy.Loaded() {
		t.Fatal("the embedder was loaded by Open and a read")
	}
	_, err := emb.Embed(ctx, []string{"crate"})
	var me *engine.EmbedderMismatchError
	if !errors.As(err, &me) || me.Recorded != uselite.ID || !errors.Is(err, uselite.ErrNotInstalled) {
		t.Fatalf("Embed without use-lite: %v, want an *EmbedderMismatchError matching uselite.ErrNotInstalled", err)
	}
}

// TestLazyEmbedderLoads: with use-lite installed, a LazyEmbedder open does
// not load it; the first search does.
func TestLazyEmbedderLoads(t *testing.T) {
	if _, err := os.Stat(filepath.Join(models.Path(realModelsDir, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite weights not installed in %s (mnemo models fetch use-lite): %v", realModelsDir, err)
	}
	t.Setenv(models.EnvDir, realModelsDir)
	ctx := context.Background()
	st := enginetest.SQLite.NewStore(t)
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: paddedEmbedder{id: uselite.ID, dims: uselite.Dims}}))
	if err != nil {
		t.Fatal(err)
	}
	toolThread(t, e, "t1")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e, err = engine.Open(ctx, st.Config(engine.Config{LazyEmbedder: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lazy := recall.Lazy(e.Embedder())
	if lazy == nil || lazy.Loaded() {
		t.Fatalf("after Open: %T loaded, want a lazy use-lite not loaded", e.Embedder())
	}
	r, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "crate", Options: recall.Options{Mode: recall.ModeVector, TopK: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !lazy.Loaded() || r.Retrieval.Vector != recall.StatusOK {
		t.Fatalf("after a vector search: loaded %v, vector %q", lazy.Loaded(), r.Retrieval.Vector)
	}
}

// paddedEmbedder is hash-384 padded with zeros to dims under another id:
// vectors of use-lite's shape without its weights.
type paddedEmbedder struct {
	id   string
	dims int
}

func (p paddedEmbedder) ID() string { return p.id }
func (p paddedEmbedder) Dims() int  { return p.dims }

func (p paddedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := recall.HashEmbedder{}.Embed(ctx, texts)
	for i, v := range vs {
		vs[i] = append(v, make([]float32, p.dims-len(v))...)
	}
	return vs, err
}
