package journal_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestPruneAged: PruneAged deletes the memctx records older than its
// cutoff of every thread (of one resource's runs when it is given), also
// of a thread that loads no context again, in batches until none is left
// (more records than one batch holds), and keeps the younger ones and the
// run claims; CountAged counts the same; a cancelled context deletes
// nothing and says so; the selection walks journal_memctx_by_time (or the
// index by resource) on SQLite.
func TestPruneAged(t *testing.T) { forEachBackend(t, testPruneAged) }

func testPruneAged(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j = journal.JournalWithClock(t, j, &clock)
	put := func(id, thread, res string) {
		t.Helper()
		if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: id, ThreadID: thread, ResourceID: res, Query: "secret plan"}, false); err != nil {
			t.Fatal(err)
		}
	}
	old := journal.PruneBatch + 200
	for i := range old {
		put(fmt.Sprintf("old%d", i), []string{"x", "y"}[i%2], "r1")
	}
	put("other-old", "z", "r2")
	clock = clock.Add(3 * time.Hour)
	put("young", "y", "r1")
	cutoff := clock.Add(-time.Hour).UnixMilli()

	for res, index := range map[string]string{"": "journal_memctx_by_time", "r1": "journal_by_resource"} {
		q, args := j.AgedQuery("key", cutoff, res)
		if b.Dialect == store.Postgres {
			index = "" // Postgres plans by cost: logged only
		}
		checkRunsPlan(t, b, db, q, args, index, false)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := j.PruneAged(cancelled, cutoff, ""); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %d, %v; want 0, context.Canceled", n, err)
	}
	if n, err := j.CountAged(ctx, cutoff, "r1"); n != int64(old) || err != nil {
		t.Fatalf("CountAged r1: %d, %v; want %d", n, err, old)
	}
	if n, err := j.PruneAged(ctx, cutoff, "r1"); n != int64(old) || err != nil {
		t.Fatalf("PruneAged r1: %d, %v; want %d", n, err, old)
	}
	if got := runIDs(t, j, journal.RunFilter{Limit: 10}); !slices.Equal(got, []string{"young", "other-old"}) {
		t.Fatalf("after pruning r1: runs %q, want [young other-old]", got)
	}
	if n, err := j.CountAged(ctx, cutoff, ""); n != 1 || err != nil {
		t.Fatalf("CountAged: %d, %v; want 1", n, err)
	}
	if n, err := j.PruneAged(ctx, cutoff, ""); n != 1 || err != nil {
		t.Fatalf("PruneAged: %d, %v; want 1", n, err)
	}
	if got := runIDs(t, j, journal.RunFilter{Limit: 10}); !slices.Equal(got, []string{"young"}) {
		t.Fatalf("after pruning: runs %q, want [young]", got)
	}
	if err := j.CheckRun(ctx, "old0", "other", "r1"); !errors.Is(err, journal.ErrRunOwned) {
		t.Fatalf("a pruned run's id is no longer claimed: %v", err)
	}
}
