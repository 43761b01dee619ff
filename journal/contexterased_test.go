package journal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestScrubMarksContextErased: ScrubMemCtx marks the records whose run
// held an erased turn (a recent or recalled reference to it, a query
// quoting it, or what Erased.Held finds in a record that does not name
// it), and CheckRunContext refuses exactly those runs. A turn whose text
// is literally ErasedPreview, in the window or as the query, marks
// nothing, and neither does an erased turn that was only dropped.
func TestScrubMarksContextErased(t *testing.T) { forEachBackend(t, testScrubMarksContextErased) }

func testScrubMarksContextErased(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	ref := func(id, preview string) []journal.Ref {
		return []journal.Ref{{ThreadID: "t1", Seq: 1, MessageID: id, Role: "user", Preview: preview}}
	}
	recs := []struct {
		rec    journal.MemCtx
		marked bool
	}{
		{journal.MemCtx{RunID: "recent", Recent: ref("m1", "the secret plan")}, true},
		{journal.MemCtx{RunID: "recalled", Recalled: ref("m1", "the secret plan")}, true},
		{journal.MemCtx{RunID: "query", Query: "what was the secret plan?", Recent: ref("m2", "hi")}, true},
		{journal.MemCtx{RunID: "held", Recent: ref("m2", "hi")}, true},
		{journal.MemCtx{RunID: "dropped", Dropped: ref("m1", "the secret plan")}, false},
		{journal.MemCtx{RunID: "literal", Query: journal.ErasedPreview, Recent: ref("m3", journal.ErasedPreview)}, false},
		{journal.MemCtx{RunID: "untouched", Query: "hello", Recent: ref("m2", "hi")}, false},
	}
	for _, r := range recs {
		r.rec.ThreadID, r.rec.ResourceID = "t1", "r1"
		if err := j.PutMemCtx(ctx, &r.rec, false); err != nil {
			t.Fatal(err)
		}
	}
	erased := journal.ErasedTexts(map[string]string{"m1": "the secret plan"})
	erased.Held = func(rec *journal.MemCtx) bool { return rec.RunID == "held" }
	inTx(t, db, func(tx *store.Tx) error {
		_, _, err := journal.ScrubMemCtx(ctx, tx, "r1", erased, journal.Entomb{})
		return err
	})
	for _, r := range recs {
		rec, err := j.MemCtx(ctx, r.rec.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.ContextErased != r.marked {
			t.Errorf("run %s: ContextErased %v, want %v", r.rec.RunID, rec.ContextErased, r.marked)
		}
		err = journal.CheckRunContext(ctx, store.Bound(db), r.rec.RunID)
		if r.marked != errors.Is(err, journal.ErrRunContextErased) || !r.marked && err != nil {
			t.Errorf("CheckRunContext(%s) = %v, want refused: %v", r.rec.RunID, err, r.marked)
		}
	}
}

// TestCheckRunContextWaitsForErasure: on Postgres, an erasure holding the
// run contexts' lock of a resource (LockRunContexts) and marking a run's
// record makes that run's check (CheckRunContext, in another transaction)
// wait until it commits, and then refuse: the check does not read the
// record as it stood before the erasure (READ COMMITTED) and let the
// write commit after it. SQLite needs no lock: its write transactions run
// one at a time.
func TestCheckRunContextWaitsForErasure(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Name != "postgres" {
			t.Skip("SQLite runs the erasure and the write one at a time (one writer): no lock to wait for")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		j, db := b.openErase(t)
		if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "run-1", ThreadID: "t1", ResourceID: "r1"}, false); err != nil {
			t.Fatal(err)
		}
		erasure, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer erasure.Rollback()
		if err := journal.LockRunContexts(ctx, erasure, []string{"r1"}); err != nil {
			t.Fatal(err)
		}
		erased := journal.ErasedTexts(nil)
		erased.Held = func(rec *journal.MemCtx) bool { return rec.RunID == "run-1" }
		if _, _, err := journal.ScrubMemCtx(ctx, erasure, "r1", erased, journal.Entomb{}); err != nil {
			t.Fatal(err)
		}
		checked := make(chan error, 1)
		go func() {
			w, err := store.Begin(ctx, db, nil)
			if err != nil {
				checked <- err
				return
			}
			defer w.Rollback()
			checked <- journal.CheckRunContext(ctx, store.Bound(w), "run-1")
		}()
		for waiting := false; !waiting; {
			select {
			case err := <-checked:
				t.Fatalf("the check returned %v while the erasure held the lock, want it to wait", err)
			case <-time.After(5 * time.Millisecond):
			}
			var n int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND classid = $1::int4::oid AND objid = hashtext(current_schema() || '/' || 'r1')::oid AND objsubid = 2`,
				journal.RunContextLockClass).Scan(&n); err != nil {
				t.Fatal(err)
			}
			waiting = n > 0
		}
		if err := erasure.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-checked; !errors.Is(err, journal.ErrRunContextErased) {
			t.Fatalf("the check after the erasure committed: %v, want journal.ErrRunContextErased", err)
		}
	})
}
