package observe_test

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

func TestErasureAfterSkipKeepsIt(t *testing.T) {
	forEachBackend(t, testErasureAfterSkipKeepsIt)
}

// testErasureAfterSkipKeepsIt: an erasure in the thread from a seq after
// a skip (seq 5, the skip 3..3) leaves the skip's row live, so it keeps
// its record, and its record of a model that refused it again: Skips
// lists it, that model does not send it again, another model does, once,
// and its answer replaces it. Before, Invalidate deleted every memo entry
// of the thread, skip records included: the skip's empty row stayed as an
// observation of nothing, the turn neither observed, nor listed as
// skipped, nor sent again under another model.
func testErasureAfterSkipKeepsIt(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	fa := newFakeModel(t, moderated("Mallory"))
	ea := b.openEnv(t, place, src, namedModel(t, fa, "model-a"), cfg)
	if res, err := ea.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("model a: %+v, %v; want seq 3 skipped", res, err)
	}
	fc := newFakeModel(t, moderated("Mallory"))
	ec := b.openEnv(t, place, src, namedModel(t, fc, "model-c"), cfg)
	clock.add(time.Minute)
	src.add("t", 10, user("Ana buys a hive."), assistant("Noted."))
	if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil || flaggedCalls(fc, "Mallory") != 1 {
		t.Fatalf("model c: %v, the skipped turn sent %d times, want once (refused again)", err, flaggedCalls(fc, "Mallory"))
	}

	tx, err := store.Begin(ctx, ea.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := observe.Invalidate(ctx, tx, "t", 5, clock.now()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if sk, err := observe.Skips(ctx, ea.db, "t"); err != nil || len(sk) != 1 || sk[0].FromSeq != 3 || sk[0].ToSeq != 3 {
		t.Fatalf("Skips after an erasure from seq 5 = %+v, %v; want the skip of 3..3 kept", sk, err)
	}
	if wm := watermark(t, ea, "t"); wm != 3 {
		t.Fatalf("watermark after the erasure %d, want 3", wm)
	}
	ec = b.openEnv(t, place, src, namedModel(t, fc, "model-c"), cfg)
	if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil || flaggedCalls(fc, "Mallory") != 1 {
		t.Fatalf("model c after the erasure: %v, the skipped turn sent %d times, want once in all", err, flaggedCalls(fc, "Mallory"))
	}
	fb := newFakeModel(t, copying(false))
	eb := b.openEnv(t, place, src, namedModel(t, fb, "model-b"), cfg)
	res, err := eb.obs.Observe(ctx, "t", observe.Options{NoReflect: true})
	if err != nil || flaggedCalls(fb, "Mallory") != 1 || len(res.Observations) == 0 || rangeOf(res.Observations[0]) != "3..3" {
		t.Fatalf("model b after the erasure: %+v, %v, the skipped turn sent %d times; want it sent once and observed", res, err, flaggedCalls(fb, "Mallory"))
	}
	if sk, err := observe.Skips(ctx, eb.db, "t"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips after model b = %+v, %v; want none", sk, err)
	}
}
