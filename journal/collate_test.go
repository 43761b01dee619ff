package journal_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestRunsTieByteOrder: runs recorded in one millisecond are listed
// (ListRuns) and kept (Prune's KeepRuns) by run id in descending byte
// order on both backends, even where the key column's collation is
// linguistic (ICU's "und-x-icu": a < B < C < f, where bytes give B < C <
// a < f). On Postgres the tie followed the collation: the retention kept
// f and C, SQLite f and a.
func TestRunsTieByteOrder(t *testing.T) { forEachBackend(t, testRunsTieByteOrder) }

func testRunsTieByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	b.Linguistic(t, store.Bound(db), "journal.key")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j = journal.JournalWithClock(t, j, &clock)
	for _, id := range []string{"B", "a", "f", "C"} {
		if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: id, ThreadID: "t", ResourceID: "r"}, false); err != nil {
			t.Fatal(err)
		}
	}
	list := func(f journal.RunFilter) string {
		t.Helper()
		runs, err := j.ListRuns(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range runs {
			out += r.RunID + " "
		}
		return out
	}
	if got, want := list(journal.RunFilter{ThreadID: "t"}), "f a C B "; got != want {
		t.Errorf("ListRuns: %q, want %q", got, want)
	}
	if got, want := list(journal.RunFilter{ResourceID: "r", Limit: 2, Offset: 1}), "a C "; got != want {
		t.Errorf("ListRuns, limit 2 offset 1: %q, want %q", got, want)
	}
	if n, err := j.Prune(ctx, "t", journal.Retention{KeepRuns: 2}); err != nil || n != 2 {
		t.Fatalf("Prune: %d, %v; want 2 deleted", n, err)
	}
	if got, want := list(journal.RunFilter{ThreadID: "t"}), "f a "; got != want {
		t.Errorf("kept by KeepRuns 2: %q, want %q", got, want)
	}
}

// TestDispatchTiesByteOrder: dispatches of one call begun in one
// millisecond are listed (UnsettledDispatches, PendingDispatches,
// AnsweredBy) and picked (OtherDispatch) by run id in byte order on both
// backends (B < C < a < f), even where the run_id column's collation is
// linguistic (a < B < C < f): on Postgres they followed the collation.
func TestDispatchTiesByteOrder(t *testing.T) { forEachBackend(t, testDispatchTiesByteOrder) }

func testDispatchTiesByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	b.Linguistic(t, store.Bound(db), "runs.id", "dispatches.run_id")
	runs := []string{"f", "a", "C", "B"}
	inTx(t, db, func(tx *store.Tx) error {
		for _, q := range []string{
			`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`,
			`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, created_at, tokens, digest)
				VALUES ('m1', 't1', 'r1', 1, 'assistant', '', '[{"id":"c1","name":"send","arguments":{}}]', 1, 1, 'd')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, run := range runs {
			if err := j.ClaimRunTx(ctx, tx, run, "t1", "r1"); err != nil {
				return err
			}
			if err := journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: run, CallID: "c1", ThreadID: "t1", ResourceID: "r1",
				MessageID: "m1", Name: "send", BegunAt: time.UnixMilli(1).UTC()}); err != nil {
				return err
			}
		}
		return nil
	})
	const want = "B C a f "
	keys, err := j.UnsettledDispatches(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, k := range keys {
		got += k.RunID + " "
	}
	if got != want {
		t.Errorf("UnsettledDispatches: %q, want %q", got, want)
	}
	inTx(t, db, func(tx *store.Tx) error {
		list := func(what string, ds []journal.Dispatch, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, d := range ds {
				got += d.RunID + " "
			}
			if got != want {
				t.Errorf("%s: %q, want %q", what, got, want)
			}
		}
		ds, err := j.PendingDispatches(ctx, tx, "t1", 5)
		list("PendingDispatches", ds, err)
		ds, err = journal.AnsweredBy(ctx, tx, "t1", "c1", 5)
		list("AnsweredBy", ds, err)
		d, ok, err := journal.OtherDispatch(ctx, tx, "t1", "m1", "c1", "zz")
		if err != nil || !ok || d.RunID != "B" {
			t.Errorf("OtherDispatch: %q (%v, %v), want B", d.RunID, ok, err)
		}
		return nil
	})
}
