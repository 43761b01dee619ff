package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDeleteThreadEntombsOtherThreadsRefs: a run of thread B recalled turns
// of thread A (scope resource); DeleteThread(A) scrubbed the previews of
// those references in B's memctx record but kept A's thread id and message
// ids, so A's id stayed in the data directory (SQLite) and in a journal
// row (Postgres), although erasure promises the id is kept nowhere. The
// references become tombstones, as entomb makes them in A's own records,
// and so does A's id in the run's recall filter.
func TestDeleteThreadEntombsOtherThreadsRefs(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const a, b, res = "trip-alpha-5521", "notes-beta-7730", "res-cross"
		aIDs := []string{"alpha-msg-9101", "alpha-msg-9102", "alpha-msg-9103"}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: a, ResourceID: res, Messages: []engine.Message{
			{ID: aIDs[0], Role: engine.RoleUser, Content: "book the Porto night train for Friday"},
			{ID: aIDs[1], Role: engine.RoleAssistant, Content: "The Porto night train leaves Lyon at nine."},
			{ID: aIDs[2], Role: engine.RoleUser, Content: "thanks, a window seat please"},
		}}); err != nil {
			t.Fatal(err)
		}
		appendUser(t, e, b, res, "what about the weather next week?")
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "beta-run-1", ThreadID: b, Query: "Porto night train", RecentN: 1,
			Recall: &recall.Options{TopK: 3, Mode: recall.ModeLexical, Scope: recall.ScopeResource,
				Filter: json.RawMessage(`{"threadId": {"$in": ["` + a + `", "` + b + `"]}}`)}}); err != nil {
			t.Fatal(err)
		}
		rec, err := e.Journal().MemCtx(ctx, "beta-run-1")
		if err != nil {
			t.Fatal(err)
		}
		if !refsThread(rec.Recalled, a) {
			t.Fatalf("the fixture's run did not recall thread A's turns: %+v", rec.Recalled)
		}

		if _, err := e.DeleteThread(ctx, a); err != nil {
			t.Fatal(err)
		}
		for _, tok := range append([]string{a}, aIDs...) {
			if hits := storedCopies(t, be, e, tok); len(hits) > 0 {
				t.Errorf("the deleted thread's id %q is still in %v", tok, hits)
			}
		}
		rec, err = e.Journal().MemCtx(ctx, "beta-run-1")
		if err != nil {
			t.Fatalf("thread B's record: %v", err)
		}
		if rec.ThreadID != b || rec.ResourceID != res {
			t.Fatalf("thread B's record changed owner: %s/%s", rec.ThreadID, rec.ResourceID)
		}
		tombs := 0
		for _, r := range rec.Recalled {
			if r.ThreadID == b {
				continue
			}
			tombs++
			if !strings.HasPrefix(r.ThreadID, engine.TombstonePrefix) || !strings.HasPrefix(r.MessageID, engine.TombstonePrefix) || r.Preview != engine.ErasedPreview {
				t.Errorf("a reference to the deleted thread: %+v, want tombstones and %q", r, engine.ErasedPreview)
			}
		}
		if tombs == 0 {
			t.Fatal("the references to the deleted thread's turns are gone from B's record")
		}
		// Replay says the turns are gone, naming no erased id.
		_, err = e.Replay(ctx, "beta-run-1", engine.ReplayOptions{})
		var div *engine.DivergenceError
		if !errors.As(err, &div) {
			t.Fatalf("replay: %v, want a divergence", err)
		}
		if !strings.Contains(err.Error(), "deleted thread") {
			t.Errorf("replay does not say the turns' thread was deleted: %v", err)
		}
		for _, tok := range append([]string{a}, aIDs...) {
			if strings.Contains(err.Error(), tok) {
				t.Errorf("replay names the erased id %q: %v", tok, err)
			}
		}
	})
}

// refsThread reports whether refs name a turn of thread.
func refsThread(refs []journal.Ref, thread string) bool {
	for _, r := range refs {
		if r.ThreadID == thread {
			return true
		}
	}
	return false
}
