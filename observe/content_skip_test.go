package observe_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

func TestContentRefusalSkip(t *testing.T) {
	forEachBackend(t, testContentRefusalSkip)
}

// testContentRefusalSkip is obs68: a thread whose 3rd message the
// endpoint flags. The chunk 1..6 is refused, cut to 1..2 (observed), then
// 3..4 (refused), then 3 alone (refused: skipped), then 4..6 (observed):
// every turn but the 3rd observed, the 3rd recorded as skipped (seqs and
// reason, not its text) and never sent again on the next rounds. The
// memo does not replay the skip as an observation (ObserveRange 3..3
// asks the model), and an erasure in the thread forgets it.
func testContentRefusalSkip(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated("Mallory"))
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	res, err := e.obs.Observe(ctx, "t", observe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := observe.Skip{ThreadID: "t", FromSeq: 3, ToSeq: 3, Reason: observe.SkipContentRefused, At: clock.now().UTC(), Model: "fake-observer"}
	if len(res.Skipped) != 1 || res.Skipped[0] != want {
		t.Fatalf("Skipped %+v, want [%+v]", res.Skipped, want)
	}
	var ranges []string
	for _, o := range res.Observations {
		ranges = append(ranges, rangeOf(o))
	}
	if got := strings.Join(ranges, " "); got != "1..2 4..6" {
		t.Fatalf("observed %s, want 1..2 4..6", got)
	}
	if wm := watermark(t, e, "t"); wm != 6 {
		t.Fatalf("watermark %d, want 6", wm)
	}
	if got := flaggedCalls(f, "Mallory"); got != 3 {
		t.Fatalf("the flagged turn sent %d times, want 3 (in 1..6, 3..4, alone)", got)
	}
	if bo := e.obs.Backoffs("t"); len(bo) != 0 {
		t.Fatalf("Backoffs %+v, want none", bo)
	}
	rec, err := e.j.Recorded(ctx, journal.ScopeMemo, observe.MemoPrefix("t")+"skipped|3|3")
	if err != nil || strings.Contains(string(rec), "Mallory") || strings.Contains(string(rec), "flagged") || !strings.Contains(string(rec), observe.SkipContentRefused) {
		t.Fatalf("skip record %s, %v: want the reason, not the turn's text nor the endpoint's message", rec, err)
	}

	// The next rounds observe the new turns and never send seq 3 again.
	for round := range 3 {
		clock.add(10 * time.Minute)
		src.add("t", 10, user("Ana buys a new hive."), assistant("Noted."))
		if _, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if wm := watermark(t, e, "t"); wm != int64(8+2*round) {
			t.Fatalf("round %d: watermark %d, want %d", round, wm, 8+2*round)
		}
	}
	if got := flaggedCalls(f, "Mallory"); got != 3 {
		t.Fatalf("the flagged turn sent %d times after the skip, want 3 (none again)", got)
	}
	if sk, err := observe.Skips(ctx, e.db, "t"); err != nil || len(sk) != 1 || sk[0] != want {
		t.Fatalf("Skips = %+v, %v; want [%+v]", sk, err, want)
	}

	// The memo holds no observer answer of 3..3: ObserveRange asks.
	if _, _, err := e.obs.ObserveRange(ctx, "t", 3, 3); err == nil || flaggedCalls(f, "Mallory") != 4 {
		t.Fatalf("ObserveRange 3..3: %v, %d calls of the flagged turn (want a refused call)", err, flaggedCalls(f, "Mallory"))
	}

	// An erasure from seq 3 forgets the skip with the thread's memo.
	tx, err := store.Begin(ctx, e.db, nil)
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
	if sk, err := observe.Skips(ctx, e.db, "t"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips after the erasure = %+v, %v; want none", sk, err)
	}
	if wm := watermark(t, e, "t"); wm != 2 {
		t.Fatalf("watermark after the erasure %d, want 2", wm)
	}
}

// rangeOf is o's range as "from..to".
func rangeOf(o observe.Observation) string { return fmt.Sprintf("%d..%d", o.FromSeq, o.ToSeq) }
