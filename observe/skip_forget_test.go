package observe_test

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

func TestForgetDropsSkipsTried(t *testing.T) {
	forEachBackend(t, testForgetDropsSkipsTried)
}

// testForgetDropsSkipsTried is obs73 item 3: an erasure (Invalidate, then
// Forget, as the engine does) left the thread in skipsTried, the threads
// whose skips under another model this observer sent again and saw
// refused. The erasure forgot those skips; the thread observed again
// under model a skipped seq 3 anew, and model c never sent it again:
// skipsTried still said it had. Forget now drops the entry: model c
// reads the new skip and sends its turn again, once.
func testForgetDropsSkipsTried(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."), assistant("Noted."))
	ea := b.openEnv(t, place, src, namedModel(t, newFakeModel(t, moderated("Mallory")), "model-a"), cfg)
	fc := newFakeModel(t, moderated("Mallory"))
	ec := b.openEnv(t, place, src, namedModel(t, fc, "model-c"), cfg)
	skipUnderA := func(when string) {
		t.Helper()
		if res, err := ea.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 {
			t.Fatalf("%s: model a: %+v, %v; want seq 3 skipped", when, res, err)
		}
	}
	skipUnderA("first")
	if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil || observe.SkipsTried(ec.obs) != 1 || flaggedCalls(fc, "Mallory") != 1 {
		t.Fatalf("model c: %v, %d thread(s) kept, seq 3 sent %d time(s); want 1 kept, sent once", err, observe.SkipsTried(ec.obs), flaggedCalls(fc, "Mallory"))
	}

	// An erasure from seq 3 forgets the skip and its refusal under c.
	tx, err := store.Begin(ctx, ec.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := observe.Invalidate(ctx, tx, "t", 3, clock.now()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ec.obs.Forget("t")
	if got := observe.SkipsTried(ec.obs); got != 0 {
		t.Fatalf("after Forget: %d thread(s) kept, want 0", got)
	}
	skipUnderA("after the erasure")
	if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil || flaggedCalls(fc, "Mallory") != 2 {
		t.Fatalf("model c after the erasure: %v, seq 3 sent %d time(s) in all; want 2 (the new skip sent again, once)", err, flaggedCalls(fc, "Mallory"))
	}
}
