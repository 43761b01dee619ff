package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// cancelEmbedder is hash-384 that, once armed, cancels the caller's
// context when a query (one text) reaches it and returns the context's
// error, as a remote embedder does when its request is cut off: the hook
// that puts the cancellation inside a search already under way.
type cancelEmbedder struct {
	recall.HashEmbedder
	cancel atomic.Pointer[context.CancelFunc]
}

func (c *cancelEmbedder) ID() string { return "cancel-384" }

func (c *cancelEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f := c.cancel.Load(); f != nil && len(texts) == 1 {
		(*f)()
		return nil, ctx.Err()
	}
	return c.HashEmbedder.Embed(ctx, texts)
}

// TestSearchCancelled: a context cancelled while a search runs (here in
// the query's embedding) makes Search, SearchMessages, SearchPreviews and
// LoadContext return an error wrapping context.Canceled. They returned the
// lexical channel's hits with a nil error and the vector channel
// "degraded: context canceled", as if the cancellation were an embedder
// outage; and LoadContext recorded no run for the cancelled call.
func TestSearchCancelled(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &cancelEmbedder{}
		e := be.MustOpen(t, engine.Config{Embedder: emb})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("m1", "the night train to Porto leaves at ten"),
			user("m2", "the ferry to Lisbon is cancelled"),
		}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		req := engine.SearchRequest{ResourceID: "r", Query: "train to Porto", Options: recall.Options{TopK: 2}}
		if _, err := e.Search(ctx, req); err != nil { // loads the resource: the cancelled searches read no row
			t.Fatal(err)
		}
		calls := map[string]func(context.Context) error{
			"Search": func(ctx context.Context) error { _, err := e.Search(ctx, req); return err },
			"SearchMessages": func(ctx context.Context) error {
				_, err := e.SearchMessages(ctx, req)
				return err
			},
			"SearchPreviews": func(ctx context.Context) error {
				_, err := e.SearchPreviews(ctx, req)
				return err
			},
			"LoadContext": func(ctx context.Context) error {
				_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-cancelled", ThreadID: "t", Query: "train to Porto", RecentN: 1,
					Recall: &recall.Options{TopK: 2, Scope: recall.ScopeResource}})
				return err
			},
		}
		for name, call := range calls {
			cctx, cancel := context.WithCancel(ctx)
			emb.cancel.Store(&cancel)
			err := call(cctx)
			emb.cancel.Store(nil)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s cancelled during the query's embedding: err=%v, want context.Canceled", name, err)
			}
		}
		runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 0 {
			t.Errorf("runs after a cancelled LoadContext: %+v, want none", runs)
		}
	})
}
