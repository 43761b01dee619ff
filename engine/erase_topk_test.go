package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSearchPendingDeletionKeepsTopK: messages erased while their index
// removal still waits (the drainer held: the erasure committed, its
// delete rows queued) are not counted against topK. After each kind of
// erasure every search path (Search, SearchMessages, LoadContext's
// recall) in every mode answers min(K, live matches) hits, no erased
// message among them. Before the fix the indexes ranked the erased
// message in the top K and the answer held K-1 hits (SearchMessages,
// LoadContext) or the erased id (Search) although other matches existed.
func TestSearchPendingDeletionKeepsTopK(t *testing.T) {
	const k = 3
	cases := []struct {
		name  string
		erase func(context.Context, *engine.Engine) (*engine.EraseResult, error)
		want  int // min(k, live matches)
	}{
		{"DeleteMessages", func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteMessages(ctx, "top")
		}, k},
		{"DeleteThread", func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteThread(ctx, "gone")
		}, k},
		{"DeleteResource", func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteResource(ctx, "r")
		}, 0},
	}
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				e := be.MustOpen(t, engine.Config{})
				appendMatches(ctx, t, e)
				eraseHeld(ctx, t, e, c.erase)
				for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
					t.Run(string(mode), func(t *testing.T) { checkSearches(ctx, t, e, recall.Options{TopK: k, Mode: mode}, c.want) })
				}
			})
		}
	})
}

// appendMatches stores, in resource r, message "top" (thread "gone")
// that ranks first for "refund approved" and five other matches (thread
// "old"), and waits until the indexes hold them.
func appendMatches(ctx context.Context, t *testing.T, e *engine.Engine) {
	t.Helper()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "gone", ResourceID: "r", Messages: []engine.Message{user("top", "refund approved refund approved refund approved")}}); err != nil {
		t.Fatal(err)
	}
	var msgs []engine.Message
	for i := range 5 {
		msgs = append(msgs, user(fmt.Sprintf("m%d", i), fmt.Sprintf("the refund for order %d was approved", i)))
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "old", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Hits) != 1 || before.Hits[0].MessageID != "top" {
		t.Fatalf("before the erasure the first hit is %+v, want top: the test proves nothing", before.Hits)
	}
}

// checkSearches fails t unless Search, SearchMessages and LoadContext
// (thread "new" of r, recall opts) answer want hits, none of them "top".
func checkSearches(ctx context.Context, t *testing.T, e *engine.Engine, opts recall.Options, want int) {
	t.Helper()
	req := engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: opts}
	res, err := e.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.MessageID)
	}
	checkHits(t, "Search", ids, want)
	sm, err := e.SearchMessages(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ids = ids[:0]
	for _, h := range sm.Hits {
		ids = append(ids, h.Message.ID)
	}
	checkHits(t, "SearchMessages", ids, want)
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "new", ResourceID: "r", Query: "refund approved", Recall: &opts})
	if err != nil {
		t.Fatal(err)
	}
	ids = ids[:0]
	for _, m := range c.Messages {
		if m.Reason == "hit" {
			ids = append(ids, m.MessageID)
		}
	}
	checkHits(t, "LoadContext", ids, want)
}

// checkHits fails t unless ids are want hits, none of them the erased "top".
func checkHits(t *testing.T, call string, ids []string, want int) {
	t.Helper()
	if len(ids) != want {
		t.Errorf("%s: hits %v, want %d", call, ids, want)
	}
	for _, id := range ids {
		if id == "top" {
			t.Errorf("%s: hits %v hold the erased message", call, ids)
		}
	}
}

// eraseHeld runs erase while the drainer is held, and returns once the
// erasure committed (the index removal of "top" queued, on SQLite) or
// returned (Postgres, whose indexes go with the rows); the erasure
// finishes when the test ends.
func eraseHeld(ctx context.Context, t *testing.T, e *engine.Engine, erase func(context.Context, *engine.Engine) (*engine.EraseResult, error)) {
	t.Helper()
	const id = "top"
	release := e.HoldDrain()
	done := make(chan error, 1)
	go func() {
		_, err := erase(ctx, e)
		done <- err
	}()
	t.Cleanup(func() {
		release()
		if err := <-done; err != nil {
			t.Errorf("erase: %v", err)
		}
	})
	for {
		select {
		case err := <-done:
			done <- err
			return
		default:
		}
		var n int
		if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = 'delete' AND message_id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
