package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// loadEmbedderID opens an engine with the default embedder, recalls once and
// returns memctx.retrieval.embedder.
func loadEmbedderID(t *testing.T, st enginetest.Store) string {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{}))
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

// TestDefaultEmbedder: a new directory takes the default embedder (hash-384
// without use-lite installed, use-lite with it), and the embedder is
// sticky: a hash-384 directory reopened with use-lite installed stays
// hash-384 (before, it silently switched and searched a vector channel in
// which 0 of N messages were embedded while re-embedding in the
// background).
func TestDefaultEmbedder(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) { testDefaultEmbedder(t, be) })
}

func testDefaultEmbedder(t *testing.T, be enginetest.Backend) {
	st := be.NewStore(t)
	if got := loadEmbedderID(t, st); got != recall.HashID {
		t.Fatalf("without use-lite installed the default is %q, want %q", got, recall.HashID)
	}
	if _, err := os.Stat(filepath.Join(models.Path(realModelsDir, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite weights not installed in %s (mnemo models fetch use-lite): %v", realModelsDir, err)
	}
	t.Setenv(models.EnvDir, realModelsDir)
	if got := loadEmbedderID(t, st); got != recall.HashID {
		t.Fatalf("a hash-384 directory reopened with use-lite installed uses %q, want its recorded %q", got, recall.HashID)
	}
	if got := loadEmbedderID(t, be.NewStore(t)); got != uselite.ID {
		t.Fatalf("with use-lite installed a new directory's default is %q, want %q", got, uselite.ID)
	}
}

// TestEmbedderSwitch: opening a directory with another embedder than the
// one it records fails with the command to run; with SwitchEmbedder every
// message is embedded again (Check passes once the outbox is drained) and
// the new embedder is recorded: a later Open without an embedder is told
// to give it (it is not built in).
func TestEmbedderSwitch(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		if got := loadEmbedderID(t, st); got != recall.HashID {
			t.Fatalf("default %q, want %q", got, recall.HashID)
		}
		other := renamedEmbedder{id: "test-embedder"}
		_, err := engine.Open(ctx, st.Config(engine.Config{Embedder: other}))
		var me *engine.EmbedderMismatchError
		if !errors.Is(err, engine.ErrEmbedderMismatch) || !errors.As(err, &me) || me.Recorded != recall.HashID || me.Requested != other.ID() {
			t.Fatalf("open with another embedder: %v, want an *EmbedderMismatchError", err)
		}
		if !strings.Contains(err.Error(), "reindex --vectors") {
			t.Errorf("error %q does not name the command to run", err)
		}
		e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: other, SwitchEmbedder: true}))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.Check(ctx); err != nil {
			t.Fatalf("after switching embedders: %v", err)
		}
		e.Close()
		// The recorded embedder is not built in: it must be given.
		_, err = engine.Open(ctx, st.Config(engine.Config{}))
		if !errors.As(err, &me) || me.Recorded != other.ID() || me.Requested != "" {
			t.Fatalf("reopened without an embedder: %v, want an *EmbedderMismatchError naming %s", err, other.ID())
		}
		e, err = engine.Open(ctx, st.Config(engine.Config{Embedder: other}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if got := e.Embedder().ID(); got != other.ID() {
			t.Fatalf("embedder %q, want %q", got, other.ID())
		}
	})
}

// renamedEmbedder is hash-384 under another id: an embedder the engine
// cannot build by itself.
type renamedEmbedder struct {
	recall.HashEmbedder
	id string
}

func (r renamedEmbedder) ID() string { return r.id }
