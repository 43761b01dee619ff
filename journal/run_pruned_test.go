package journal_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// TestPrunedRunSaysSo: a run whose memctx record retention pruned (its id
// still claimed, by an owner not erased) is a *RunPrunedError, which
// matches ErrNotFound and says the record was pruned by retention, naming
// neither its thread nor its resource (MemCtx and RawMemCtx alike); an
// unknown run id and a run claimed by an erased owner (a tombstone) stay
// the plain "run not found" (walk58 F5).
func TestPrunedRunSaysSo(t *testing.T) { forEachBackend(t, testPrunedRunSaysSo) }

func testPrunedRunSaysSo(t *testing.T, b backend) {
	ctx := context.Background()
	j, _ := b.openErase(t)
	for _, id := range []string{"r1", "r2"} {
		if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: id, ThreadID: "thread-x", ResourceID: "res-y", Query: "q"}, false); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := j.Prune(ctx, "thread-x", journal.Retention{KeepRuns: 1}); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 pruned", n, err)
	}
	tomb := journal.TombstonePrefix + strings.Repeat("0", journal.TombstoneLen-len(journal.TombstonePrefix))
	if err := j.ClaimRun(ctx, "r3", tomb, "res-y"); err != nil {
		t.Fatal(err)
	}
	pruned := func(id string) (error, error) {
		_, err := j.MemCtx(ctx, id)
		_, raw := j.RawMemCtx(ctx, id)
		return err, raw
	}
	seen := 0
	for _, id := range []string{"r1", "r2"} { // r1 or r2: whichever KeepRuns dropped
		err, raw := pruned(id)
		if err == nil {
			continue
		}
		seen++
		for _, e := range []error{err, raw} {
			var pe *journal.RunPrunedError
			if !errors.As(e, &pe) || !errors.Is(e, journal.ErrNotFound) || pe.ResourceID != "res-y" || pe.ThreadID != "thread-x" {
				t.Fatalf("pruned %s: %v (%T); want a RunPrunedError of thread-x, res-y matching ErrNotFound", id, e, e)
			}
			if msg := e.Error(); !strings.Contains(msg, "pruned by retention (retention.keepRuns / maxAge in mnemo.json)") ||
				strings.Contains(msg, "thread-x") || strings.Contains(msg, "res-y") {
				t.Fatalf("pruned %s: %q; want the retention named and no owner", id, msg)
			}
		}
	}
	if seen != 1 {
		t.Fatalf("%d runs not found after KeepRuns 1; want 1", seen)
	}
	for _, id := range []string{"never", "r3"} {
		err, raw := pruned(id)
		for _, e := range []error{err, raw} {
			var pe *journal.RunPrunedError
			if errors.As(e, &pe) || !errors.Is(e, journal.ErrNotFound) || strings.Contains(e.Error(), "pruned") {
				t.Fatalf("%s: %v; want the plain run not found", id, e)
			}
		}
	}
}

// TestErasedRunSaysSo: a run with no memctx record whose claim's owner is
// a tombstone is a *RunErasedError, worded as LoadContext's refusal of
// the id (`run not found: "ID": the run id's thread was erased`), which
// matches ErrNotFound and ErrRunErased but not ErrRunOwned, names no
// owner, and keeps the resource only when it was not erased (walk60 L3:
// it was the plain "run not found").
func TestErasedRunSaysSo(t *testing.T) { forEachBackend(t, testErasedRunSaysSo) }

func testErasedRunSaysSo(t *testing.T, b backend) {
	ctx := context.Background()
	j, _ := b.openErase(t)
	tomb := journal.TombstonePrefix + strings.Repeat("0", journal.TombstoneLen-len(journal.TombstonePrefix))
	tomb2 := journal.TombstonePrefix + strings.Repeat("1", journal.TombstoneLen-len(journal.TombstonePrefix))
	if err := j.ClaimRun(ctx, "run-thread-erased", tomb, "res-y"); err != nil {
		t.Fatal(err)
	}
	if err := j.ClaimRun(ctx, "run-resource-erased", tomb, tomb2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ run, resource string }{{"run-thread-erased", "res-y"}, {"run-resource-erased", ""}} {
		_, err := j.MemCtx(ctx, c.run)
		_, raw := j.RawMemCtx(ctx, c.run)
		for _, e := range []error{err, raw} {
			var re *journal.RunErasedError
			if !errors.As(e, &re) || re.ResourceID != c.resource || re.RunID != c.run {
				t.Fatalf("%s: %v (%T); want a RunErasedError with resource %q", c.run, e, e, c.resource)
			}
			if !errors.Is(e, journal.ErrNotFound) || !errors.Is(e, journal.ErrRunErased) || errors.Is(e, journal.ErrRunOwned) {
				t.Errorf("%s: %v: want it to match ErrNotFound and ErrRunErased, not ErrRunOwned", c.run, e)
			}
			want := `journal: run not found: "` + c.run + `": the run id's thread was erased`
			if e.Error() != want || !strings.Contains(journal.ErrRunErased.Error(), journal.RunErasedDetail) {
				t.Errorf("%s: %q, want %q (and ErrRunErased %q in the same words)", c.run, e, want, journal.ErrRunErased)
			}
		}
	}
}
