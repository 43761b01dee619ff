package observe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/observe"
)

func TestObserveRangeReplacesSkip(t *testing.T) {
	forEachBackend(t, testObserveRangeReplacesSkip)
}

// testObserveRangeReplacesSkip is rev70: ObserveRange over a range the
// observer skipped (its content refused alone), refused again, keeps the
// skip; sent to an endpoint that takes it (another process), its answer
// is stored in place of the skip, which Skips no longer lists. Before,
// storeObservation kept the skip's empty row as the range's observation:
// the answer was recorded in the memo and never stored, ObserveRange
// returned the empty row, and the range stayed listed as skipped.
func testObserveRangeReplacesSkip(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	e1 := b.openEnv(t, place, src, newFakeModel(t, moderated("Mallory")).model(t), cfg)
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	if res, err := e1.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("Observe: %v, skipped %+v; want seq 3 skipped", err, res)
	}
	if _, _, err := e1.obs.ObserveRange(ctx, "t", 3, 3); err == nil {
		t.Fatal("ObserveRange 3..3 with the endpoint that refuses it: no error")
	}
	if sk, err := observe.Skips(ctx, e1.db, "t"); err != nil || len(sk) != 1 {
		t.Fatalf("Skips after a refused ObserveRange = %+v, %v; want the skip kept", sk, err)
	}

	clock.add(time.Minute)
	e2 := b.openEnv(t, place, src, newFakeModel(t, copying(false)).model(t), cfg)
	obs, _, err := e2.obs.ObserveRange(ctx, "t", 3, 3)
	if err != nil || !strings.Contains(obs.Content, "Mallory") {
		t.Fatalf("ObserveRange 3..3 with an endpoint that takes it: %+v, %v; want its answer stored", obs, err)
	}
	if sk, err := observe.Skips(ctx, e2.db, "t"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips after the range was observed = %+v, %v; want none", sk, err)
	}
	live, err := observe.List(ctx, e2.db, observe.Filter{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, o := range live {
		ranges = append(ranges, rangeOf(o))
	}
	if got := strings.Join(ranges, " "); got != "1..2 3..3 4..6" {
		t.Fatalf("live observations %s, want 1..2 3..3 4..6", got)
	}
	if wm := watermark(t, e2, "t"); wm != 6 {
		t.Fatalf("watermark %d, want 6", wm)
	}
	// The same call again is the memo's: the same row, no new one.
	again, _, err := e2.obs.ObserveRange(ctx, "t", 3, 3)
	if err != nil || again.ID != obs.ID {
		t.Fatalf("ObserveRange 3..3 again: %+v, %v; want row %s", again, err, obs.ID)
	}
}

func TestObserveRangeCoveringSkipDropsIt(t *testing.T) {
	forEachBackend(t, testObserveRangeCoveringSkipDropsIt)
}

// testObserveRangeCoveringSkipDropsIt is rev70 #5: ObserveRange over a
// range that contains a skipped range without being it (3..4 over the
// skip of 3..3) stores an observation of the skipped turns, and the skip
// is dropped as when the range is the skip's: its row invalidated, its
// record deleted, Skips no longer lists it, and an observer under
// another model does not send its turns again. Before, the skip stayed
// recorded beside the observation of its turns: listed by Skips (the
// inspector, mnemo observe) and sent again under another model.
func testObserveRangeCoveringSkipDropsIt(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	e1 := b.openEnv(t, place, src, newFakeModel(t, moderated("Mallory")).model(t), cfg)
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	if res, err := e1.obs.Observe(ctx, "t", observe.Options{}); err != nil || len(res.Skipped) != 1 {
		t.Fatalf("Observe: %v, skipped %+v; want seq 3 skipped", err, res)
	}

	clock.add(time.Minute)
	fb := newFakeModel(t, copying(false))
	e2 := b.openEnv(t, place, src, namedModel(t, fb, "model-b"), cfg)
	obs, _, err := e2.obs.ObserveRange(ctx, "t", 3, 4)
	if err != nil || !strings.Contains(obs.Content, "Mallory") {
		t.Fatalf("ObserveRange 3..4 with an endpoint that takes it: %+v, %v; want its answer stored", obs, err)
	}
	if sk, err := observe.Skips(ctx, e2.db, "t"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips after 3..4 was observed = %+v, %v; want none (the skip of 3..3 is covered)", sk, err)
	}
	live, err := observe.List(ctx, e2.db, observe.Filter{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for _, o := range live {
		ranges = append(ranges, rangeOf(o))
	}
	if got := strings.Join(ranges, " "); got != "1..2 3..4 4..6" {
		t.Fatalf("live observations %s, want 1..2 3..4 4..6 (the skip's row invalidated)", got)
	}
	if wm := watermark(t, e2, "t"); wm != 6 {
		t.Fatalf("watermark %d, want 6", wm)
	}
	src.add("t", 10, user("Ana moves to Porto."), assistant("Noted."))
	res, err := e2.obs.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
	if err != nil || len(res.Observations) != 1 || rangeOf(res.Observations[0]) != "7..8" || flaggedCalls(fb, "Mallory") != 1 {
		t.Fatalf("Observe under model-b: %+v, %v, the skipped turn sent %d times; want 7..8 alone, the turn sent once (by ObserveRange)", res, err, flaggedCalls(fb, "Mallory"))
	}
}
