package engine_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// stallQueryEmbedder is hash-384's vectors from an endpoint (not
// recall.InProcess) that, once armed, holds every one-text request (a
// search's query) until its context ends, as an embedding endpoint that
// accepted the connection and stopped answering does.
type stallQueryEmbedder struct {
	hash  recall.HashEmbedder
	armed atomic.Bool
}

func (s *stallQueryEmbedder) ID() string { return s.hash.ID() }
func (s *stallQueryEmbedder) Dims() int  { return s.hash.Dims() }

func (s *stallQueryEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if s.armed.Load() && len(texts) == 1 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.hash.Embed(ctx, texts)
}

// TestQueryEmbedTimeout: a search whose query embedding stalls runs
// lexical only once Config.QueryEmbedTimeout has passed, saying so in its
// retrieval (naming the bound, not the embedder's error), and LoadContext
// recalls and records the run. Before, Search and LoadContext waited for
// the embedder until their caller's deadline and failed (mnemo serve: 503
// at the request timeout, a minute, for every hybrid search while lexical
// answered in milliseconds; walk26).
func TestQueryEmbedTimeout(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &stallQueryEmbedder{}
		e := be.MustOpen(t, engine.Config{Embedder: emb, QueryEmbedTimeout: 200 * time.Millisecond})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("m1", "the night train to Porto leaves at ten"),
			user("m2", "the ferry to Lisbon is cancelled"),
			user("m3", "what time is it"),
		}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		req := engine.SearchRequest{ResourceID: "r", Query: "train to Porto", Options: recall.Options{TopK: 1}}
		if _, err := e.Search(ctx, req); err != nil { // loads the resource
			t.Fatal(err)
		}
		emb.armed.Store(true)
		want := "unavailable: embed query: the embedder did not answer within 200ms"
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second) // the caller's deadline, past the bound
		defer cancel()
		res, err := e.Search(cctx, req)
		if err != nil {
			t.Fatalf("Search with the query's embedding stalled: %v; want the lexical hits", err)
		}
		if len(res.Hits) != 1 || res.Hits[0].MessageID != "m1" || res.Retrieval.Vector != want || res.Retrieval.Lexical != recall.StatusOK {
			t.Errorf("Search: hits %v, retrieval %+v; want m1 with vector %q", res.Hits, res.Retrieval, want)
		}
		c, err := e.LoadContext(cctx, engine.LoadRequest{ThreadID: "t", Query: "train to Porto", RecentN: 1, Recall: &recall.Options{TopK: 1}})
		if err != nil {
			t.Fatalf("LoadContext with the query's embedding stalled: %v; want a context recalled lexically", err)
		}
		if m := c.MemCtx; len(m.Recalled) != 1 || m.Recalled[0].MessageID != "m1" || m.Retrieval.Vector != want {
			t.Errorf("LoadContext: recalled %v, retrieval %+v; want m1 with vector %q", m.Recalled, m.Retrieval, want)
		}
	})
}

// TestQueryEmbedTimeoutDefault: a query embedding waits at most
// recall.DefaultQueryEmbedTimeout when none is configured, and as long as
// its context allows when the bound is negative or the embedder computes
// in this process (recall.InProcess: no timer a search).
func TestQueryEmbedTimeoutDefault(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		local   bool
		want    time.Duration // 0: no deadline of its own
	}{{0, false, recall.DefaultQueryEmbedTimeout}, {time.Second, false, time.Second}, {-1, false, 0}, {0, true, 0}} {
		var got time.Duration
		var probe recall.Embedder = deadlineEmbedder{seen: func(d time.Duration) { got = d }}
		if c.local {
			probe = localEmbedder{probe.(deadlineEmbedder)}
		}
		if _, err := recall.EmbedQuery(context.Background(), probe, "q", c.timeout); err != nil {
			t.Fatal(err)
		}
		if c.want == 0 && got != 0 || c.want != 0 && (got > c.want || got < c.want-time.Second/2) {
			t.Errorf("timeout %v, in process %v: the embedder's context had %v left; want %v", c.timeout, c.local, got, c.want)
		}
	}
}

// deadlineEmbedder is hash-384's vectors from an endpoint reporting how
// long its context has left (0: no deadline).
type deadlineEmbedder struct {
	seen func(time.Duration)
}

func (deadlineEmbedder) ID() string { return recall.HashID }
func (deadlineEmbedder) Dims() int  { return recall.HashDims }

// localEmbedder is deadlineEmbedder computed in this process.
type localEmbedder struct{ deadlineEmbedder }

func (localEmbedder) InProcess() {}

func (d deadlineEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var left time.Duration
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	d.seen(left)
	return recall.HashEmbedder{}.Embed(ctx, texts)
}
