package engine_test

import (
	"context"
	"errors"
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
