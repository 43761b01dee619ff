package observe_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/observe"
)

func TestRefusedThreadCalls(t *testing.T) {
	forEachBackend(t, testRefusedThreadCalls)
}

// testRefusedThreadCalls is readme72 F6: an endpoint that refuses every
// turn of a thread for its content (but a short harmless probe) cost
// about log2(turns a chunk)+1 refused calls and a probe a turn: each
// chunk of 8 cut to 4, 2 and 1, a fresh probe before each skip: 189 calls
// for these 40 turns (readme72: 2,148 for 586 turns of 4 a chunk). Now,
// after two skips in a row, the thread's next turns go one at a time, and
// a probe answered stands for the skips of the next minute, 8 at most:
// 7 refused calls to isolate the first two turns (8, 4, 2, 1 turns; 7,
// 3, 1), 38 for the 38 others, 5 probes: 50 calls; every turn skipped,
// once. The next thread's first two skips halve again (a run is a
// thread's). An answer ends the run: in thread v, whose 6 refused turns
// are followed by 8 others, seq 7 goes alone, then 8..14 as one chunk.
func testRefusedThreadCalls(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated("Mallory"))
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 80, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	const n = 40
	for _, th := range []string{"t", "u"} {
		for i := range n / 2 {
			src.add(th, 10, user(fmt.Sprintf("Mallory says %d rude things.", i)), assistant("Mallory repeats them."))
		}
	}
	observeAll := func(th string) int {
		t.Helper()
		skipped := 0
		for range 2 * n {
			res, err := e.obs.Observe(ctx, th, observe.Options{Force: true, NoReflect: true})
			if err != nil || len(res.Observations) != 0 {
				t.Fatalf("Observe(%s) = %+v, %v; want skips alone", th, res, err)
			}
			skipped += len(res.Skipped)
			if !res.MaxRoundsReached {
				return skipped
			}
		}
		t.Fatalf("Observe(%s) still stopping at its round bound after %d calls", th, 2*n)
		return 0
	}
	if skipped := observeAll("t"); skipped != n || watermark(t, e, "t") != n {
		t.Fatalf("thread t: %d skipped, watermark %d; want every one of %d turns skipped", skipped, watermark(t, e, "t"), n)
	}
	flagged, probes := flaggedCalls(f, "Mallory"), int(f.count())-flaggedCalls(f, "Mallory")
	if flagged != 7+n-2 || probes != 5 {
		t.Fatalf("thread t: %d refused calls and %d probes for %d turns, want %d and 5 (two turns isolated by halving, the rest sent alone; a probe each 8 skips)", flagged, probes, n, 7+n-2)
	}
	if skipped := observeAll("u"); skipped != n {
		t.Fatalf("thread u: %d skipped, want %d", skipped, n)
	}
	if got := flaggedCalls(f, "Mallory") - flagged; got != 7+n-2 {
		t.Fatalf("thread u: %d refused calls, want %d (its first two turns isolated by halving)", got, 7+n-2)
	}

	for i := range 3 {
		src.add("v", 10, user(fmt.Sprintf("Mallory says %d rude things.", i)), assistant("Mallory repeats them."))
	}
	for i := range 4 {
		src.add("v", 10, user(fmt.Sprintf("Ana plants %d roses.", i)), assistant("Noted."))
	}
	res, err := e.obs.Observe(ctx, "v", observe.Options{Force: true, NoReflect: true})
	var ranges []string
	for _, o := range res.Observations {
		ranges = append(ranges, rangeOf(o))
	}
	if err != nil || len(res.Skipped) != 6 || strings.Join(ranges, " ") != "7..7 8..14" {
		t.Fatalf("thread v: %v, %d skipped, observed %v; want 6 skipped, then 7..7 and 8..14", err, len(res.Skipped), ranges)
	}
}
