package observe_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/observe"
)

func TestSkipsTriedBounded(t *testing.T) {
	forEachBackend(t, testSkipsTriedBounded)
}

// testSkipsTriedBounded is misc72 item 1: an observer kept one entry for
// every thread it observed, skipped or not, never removed (skipsTried;
// ~100 bytes a thread, ~100 MB after a million threads in a long-running
// mnemo serve). Now it keeps only the threads holding a skip under
// another model that its model refused too: of 21 threads observed under
// model c, the one whose skip under model a it refused, not the 20
// without a skip nor, under model b, the one whose skip it took.
func testSkipsTriedBounded(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."), assistant("Noted."))
	const n = 20
	for i := range n {
		src.add(fmt.Sprintf("u%d", i), 2, user("Ana waters the garden."))
	}
	ea := b.openEnv(t, place, src, namedModel(t, newFakeModel(t, moderated("Mallory")), "model-a"), cfg)
	if res, err := ea.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("model a: %+v, %v; want seq 3 skipped", res, err)
	}
	fc := newFakeModel(t, moderated("Mallory"))
	ec := b.openEnv(t, place, src, namedModel(t, fc, "model-c"), cfg)
	for range 2 {
		for i := range n {
			if _, err := ec.obs.Observe(ctx, fmt.Sprintf("u%d", i), observe.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ec.obs.Observe(ctx, "t", observe.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := observe.SkipsTried(ec.obs); got != 1 || flaggedCalls(fc, "Mallory") != 1 {
		t.Fatalf("model c after %d threads observed twice: %d threads kept, the skipped turn sent %d times; want 1 (the refused skip's) and once", n+1, got, flaggedCalls(fc, "Mallory"))
	}
	eb := b.openEnv(t, place, src, namedModel(t, newFakeModel(t, copying(false)), "model-b"), cfg)
	if res, err := eb.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Observations) == 0 || observe.SkipsTried(eb.obs) != 0 {
		t.Fatalf("model b: %+v, %v, %d threads kept; want the skip taken and none kept", res, err, observe.SkipsTried(eb.obs))
	}
}
