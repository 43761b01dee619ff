package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestBuildEmbedderUnrecorded: on a directory that records no embedder, a
// KeepOutbox open records none and does not call Config.BuildEmbedder (a
// read leaves the choice to the next writer), and a LazyEmbedder open
// records BuildEmbedder's embedder, not the default (rev48, after
// 8eb3ca13: the CLI left --embedder openai unbuilt for the commands that
// embed nothing, so MNEMO_EMBEDDER=openai mnemo wm set on a new directory
// recorded hash-384 and the next MNEMO_EMBEDDER=openai mnemo ingest was
// refused). Then BuildEmbedder is asked for the recorded one, which is not
// built in, and one of another id is refused.
func TestBuildEmbedderUnrecorded(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		t.Setenv(models.EnvDir, t.TempDir()) // the default is hash-384
		st := be.NewStore(t)
		remote := paddedEmbedder{id: "openai:m", dims: 16}
		var asked []string
		build := func(emb recall.Embedder) func(context.Context, string) (recall.Embedder, error) {
			return func(_ context.Context, recorded string) (recall.Embedder, error) {
				asked = append(asked, recorded)
				return emb, nil
			}
		}
		for _, cfg := range []engine.Config{
			{KeepOutbox: true},
			{KeepOutbox: true, LazyEmbedder: true, BuildEmbedder: build(remote)},
			{KeepOutbox: true, Embedder: recall.HashEmbedder{}},
		} {
			e, err := engine.Open(ctx, st.Config(cfg))
			if err != nil {
				t.Fatal(err)
			}
			if rec := recorded(t, e); rec != "" || len(asked) != 0 {
				t.Fatalf("a KeepOutbox open of a directory recording no embedder: recorded %q, BuildEmbedder asked for %q, want nothing", rec, asked)
			}
			e.Close()
		}
		e, err := engine.Open(ctx, st.Config(engine.Config{LazyEmbedder: true, BuildEmbedder: build(remote)}))
		if err != nil {
			t.Fatal(err)
		}
		if rec := recorded(t, e); rec != "openai:m" || len(asked) != 1 || asked[0] != "" {
			t.Fatalf("a LazyEmbedder open with BuildEmbedder: recorded %q, asked for %q, want openai:m and [\"\"]", rec, asked)
		}
		e.Close()
		e, err = engine.Open(ctx, st.Config(engine.Config{LazyEmbedder: true, KeepOutbox: true, BuildEmbedder: build(remote)}))
		if err != nil || len(asked) != 2 || asked[1] != "openai:m" || e.Embedder().ID() != "openai:m" {
			t.Fatalf("a read of the openai:m directory: %v, asked for %q, want openai:m built", err, asked)
		}
		e.Close()
		_, err = engine.Open(ctx, st.Config(engine.Config{LazyEmbedder: true, BuildEmbedder: build(paddedEmbedder{id: "openai:n", dims: 16})}))
		var me *engine.EmbedderMismatchError
		if !errors.As(err, &me) || me.Recorded != "openai:m" || me.Requested != "openai:n" {
			t.Fatalf("BuildEmbedder returning openai:n for an openai:m directory: %v, want an *EmbedderMismatchError", err)
		}
	})
}

// recorded returns the embedder e's directory records ("" when none).
func recorded(t *testing.T, e *engine.Engine) string {
	t.Helper()
	b, err := e.Journal().Recorded(context.Background(), engine.ScopeMeta, "embedder")
	if errors.Is(err, journal.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
