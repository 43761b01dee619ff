package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSearchMessages: hits come with their stored text, role, thread and
// seq, in rank order, and never from another resource.
func TestSearchMessages(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, r := range []string{"alice", "bob"} {
			msgs := []engine.Message{
				{Role: "user", Content: "my cat " + r + " likes sardines"},
				{Role: "assistant", Content: "noted, sardines for the cat"},
				{Role: "user", Content: "the weather is grey today"},
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: r + "-t", ResourceID: r, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: "alice", Query: "sardines cat", Options: recall.Options{TopK: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatal("no hits")
		}
		first := res.Hits[0]
		if got, want := first.Reason, recall.ReasonHit; got != want {
			t.Fatalf("first reason=%q, want %q", got, want)
		}
		if first.Score == nil || first.Rank != 1 {
			t.Fatalf("first hit score=%v rank=%d, want a score and rank 1", first.Score, first.Rank)
		}
		for _, h := range res.Hits {
			if h.Message.ResourceID != "alice" || h.Message.ThreadID != "alice-t" {
				t.Fatalf("hit from %s/%s, want alice/alice-t", h.Message.ResourceID, h.Message.ThreadID)
			}
			if h.Message.Content == "" || h.Message.Role == "" || h.Message.Seq == 0 {
				t.Fatalf("hit without text, role or seq: %+v", h.Message)
			}
			if h.Reason == recall.ReasonRange && h.Score != nil {
				t.Fatalf("range neighbour with a score: %+v", h)
			}
		}
		for i := 1; i < len(res.Hits); i++ {
			if res.Hits[i].Rank < res.Hits[i-1].Rank {
				t.Fatalf("hits not in rank order: %d after %d", res.Hits[i].Rank, res.Hits[i-1].Rank)
			}
		}
		if res.Hits[0].Message.Content != "my cat alice likes sardines" && res.Hits[0].Message.Content != "noted, sardines for the cat" {
			t.Fatalf("top hit text %q", res.Hits[0].Message.Content)
		}
	})
}

// TestStats counts stored messages and threads, and no pending outbox once
// the indexes are synced.
func TestStats(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := e.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Messages != 2 || s.Threads != 1 || s.OutboxPending != 0 || s.IndexLag != 0 {
			t.Fatalf("stats %+v, want 2 messages, 1 thread, nothing pending", s)
		}
	})
}

// TestPing: nil while open, ErrClosed after Close.
func TestPing(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		e := be.MustOpen(t, engine.Config{})
		if err := e.Ping(context.Background()); err != nil {
			t.Fatalf("ping: %v", err)
		}
		e.Close()
		if err := e.Ping(context.Background()); !errors.Is(err, engine.ErrClosed) {
			t.Fatalf("ping after close: %v, want ErrClosed", err)
		}
	})
}

// TestSearchOtherResourceThread is walk37 #9: a search naming another
// resource's thread answered no hits and no error, while LoadContext,
// Append and HandleToolCall refused that thread. Search, SearchMessages
// and SearchPreviews refuse it alike (ErrResourceMismatch, naming only the
// ids given); a thread stored nowhere still finds nothing, and the
// resource's own thread is searched.
func TestSearchOtherResourceThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, r := range []string{"ana", "bob"} {
			msgs := []engine.Message{{Role: "user", Content: r + " keeps the passport in the drawer"}}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + r, ResourceID: r, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		req := func(thread string) engine.SearchRequest {
			return engine.SearchRequest{ResourceID: "bob", ThreadID: thread, Query: "passport", Options: recall.Options{Scope: recall.ScopeThread}}
		}
		searches := map[string]func(engine.SearchRequest) (int, error){
			"Search": func(r engine.SearchRequest) (int, error) {
				res, err := e.Search(ctx, r)
				if err != nil {
					return 0, err
				}
				return len(res.Hits), nil
			},
			"SearchMessages": func(r engine.SearchRequest) (int, error) {
				res, err := e.SearchMessages(ctx, r)
				if err != nil {
					return 0, err
				}
				return len(res.Hits), nil
			},
			"SearchPreviews": func(r engine.SearchRequest) (int, error) {
				res, err := e.SearchPreviews(ctx, r)
				if err != nil {
					return 0, err
				}
				return len(res.Hits), nil
			},
		}
		for name, search := range searches {
			n, err := search(req("t-ana"))
			if !errors.Is(err, engine.ErrResourceMismatch) || strings.Contains(err.Error(), `"ana"`) || strings.Contains(err.Error(), "drawer") {
				t.Errorf("%s of ana's thread as bob: %d hits, %v; want ErrResourceMismatch naming neither ana nor her text", name, n, err)
			}
			if n, err := search(req("t-none")); err != nil || n != 0 {
				t.Errorf("%s of a thread stored nowhere: %d hits, %v; want none and no error", name, n, err)
			}
			if n, err := search(req("t-bob")); err != nil || n == 0 {
				t.Errorf("%s of bob's thread: %d hits, %v; want its message", name, n, err)
			}
		}
	})
}
