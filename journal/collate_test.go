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
	if b.Dialect == store.Postgres {
		conn := store.Bound(db)
		if _, err := conn.ExecContext(ctx, `ALTER TABLE journal ALTER COLUMN key TYPE text COLLATE "und-x-icu"`); err != nil {
			t.Fatal(err)
		}
		var lt bool
		if err := conn.QueryRowContext(ctx, `SELECT 'a' COLLATE "und-x-icu" < 'B' COLLATE "und-x-icu"`).Scan(&lt); err != nil || !lt {
			t.Fatalf(`"und-x-icu" does not order a before B (%v): this test could not fail`, err)
		}
	}
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
