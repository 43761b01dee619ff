package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCreatedAtFuture: a message dated more than MaxCreatedAtAhead past
// the engine's clock is refused (ErrCreatedAtFuture, field createdAt,
// nothing stored); skew within the bound and any past date are stored.
func TestCreatedAtFuture(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		now := time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)
		e := be.MustOpen(t, engine.Config{Now: func() time.Time { return now }})
		far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: engine.RoleUser, Content: "ok"}, {Role: engine.RoleUser, Content: "later", CreatedAt: far}}})
		var ve *engine.ValidationError
		if !errors.Is(err, engine.ErrCreatedAtFuture) || !errors.Is(err, engine.ErrInvalidInput) || !errors.As(err, &ve) || ve.Field != "createdAt" || ve.Index != 1 {
			t.Fatalf("far future: err %v, want ErrCreatedAtFuture on messages[1].createdAt", err)
		}
		if _, err := e.GetThread(ctx, "t"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("thread after a refused append: %v, want ErrNotFound", err)
		}
		ok := []engine.Message{
			{Role: engine.RoleUser, Content: "skewed", CreatedAt: now.Add(engine.MaxCreatedAtAhead)},
			{Role: engine.RoleUser, Content: "old", CreatedAt: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ok}); err != nil {
			t.Fatalf("within the bound and in the past: %v", err)
		}
	})
}

// TestQueryText: a query holding NUL or invalid UTF-8 is refused as a
// message's content is (ErrInvalidInput on the field query), by a search
// and by LoadContext, which records no run. Invalid UTF-8 was searched,
// and stored in the run's memctx as U+FFFD.
func TestQueryText(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hello"}}}); err != nil {
			t.Fatal(err)
		}
		for name, q := range map[string]string{"NUL": "hel\x00lo", "InvalidUTF8": "hel\xfflo", "HalfSurrogate": "hel\xed\xa0\x80lo"} {
			t.Run(name, func(t *testing.T) {
				var ve *engine.ValidationError
				_, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: "r", Query: q})
				if !errors.As(err, &ve) || ve.Field != "query" || !errors.Is(err, engine.ErrInvalidInput) {
					t.Errorf("search: %v, want a *ValidationError on query", err)
				}
				run := "run-" + name
				_, err = e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", Query: q, Recall: &recall.Options{}})
				if !errors.As(err, &ve) || ve.Field != "query" || !errors.Is(err, engine.ErrInvalidInput) {
					t.Errorf("LoadContext: %v, want a *ValidationError on query", err)
				}
				if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", Query: "hello"}); err != nil {
					t.Errorf("the refused run was recorded: %v", err)
				}
			})
		}
	})
}
