package observe_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/observe"
)

func TestAllContentRefused(t *testing.T) {
	forEachBackend(t, testAllContentRefused)
}

// testAllContentRefused is obs70 item 1: an endpoint that refuses every
// prompt for its content (a moderation proxy that flags everything)
// had every turn of every thread skipped, for good (a skip moves the
// watermark). Now the turns refused alone are skipped only when the
// endpoint answers a short harmless probe: here it refuses that too, so
// nothing is skipped, Observe fails with ErrAllContentRefused (matching
// ErrModelRefused), every thread's calls back off (BackoffModel, one WARN
// line), and once the endpoint answers again every turn is observed.
func testAllContentRefused(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated(""))
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now, Logger: textLogger(&logs)}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	src.add("a", 10, user("Ana keeps bees."), assistant("Noted."), user("Ana sells honey."),
		assistant("Noted."), user("Ana buys a hive."), assistant("Noted."))
	src.add("b", 10, user("Ben keeps goats."), assistant("Noted."))
	const warn = "refuses the content of every prompt"
	for round, wait := range []time.Duration{0, time.Minute + time.Second} {
		clock.add(wait)
		res, err := e.obs.Observe(ctx, "a", observe.Options{})
		if !errors.Is(err, observe.ErrAllContentRefused) || !errors.Is(err, observe.ErrModelRefused) || !errors.Is(err, observe.ErrContentRefused) {
			t.Fatalf("round %d: Observe(a) = %v, want ErrAllContentRefused\n%s", round, err, logs.String())
		}
		if len(res.Skipped) != 0 || watermark(t, e, "a") != 0 {
			t.Fatalf("round %d: skipped %+v, watermark %d; want nothing skipped", round, res.Skipped, watermark(t, e, "a"))
		}
		bo := e.obs.Backoffs("")
		if len(bo) != 1 || bo[0].Call != observe.BackoffModel || bo[0].Failures != round+1 || !strings.Contains(bo[0].Err, warn) {
			t.Fatalf("round %d: Backoffs %+v, want the endpoint's (BackoffModel), %d failure(s), saying it %s", round, bo, round+1, warn)
		}
		// Thread b waits with every call: no request.
		calls := f.count()
		if _, err := e.obs.Observe(ctx, "b", observe.Options{}); err != nil || f.count() != calls || watermark(t, e, "b") != 0 {
			t.Fatalf("round %d: Observe(b) = %v, %d call(s), watermark %d: want it held by the endpoint's back-off", round, err, f.count()-calls, watermark(t, e, "b"))
		}
	}
	if sk, err := observe.Skips(ctx, e.db, "a"); err != nil || len(sk) != 0 {
		t.Fatalf("Skips(a) = %+v, %v; want none", sk, err)
	}
	if n := strings.Count(logs.String(), `level=WARN msg="the model endpoint `+warn); n != 1 || strings.Contains(logs.String(), "the observer skips them") {
		t.Fatalf("%d WARN lines %q (want 1: logged when it starts), or a skip said:\n%s", n, warn, logs.String())
	}

	// The endpoint answers again: every turn is observed, none skipped.
	f.setAnswer(copying(false))
	clock.add(2*time.Minute + time.Second)
	for th, wm := range map[string]int64{"a": 6, "b": 2} {
		res, err := e.obs.Observe(ctx, th, observe.Options{})
		if err != nil || len(res.Skipped) != 0 || watermark(t, e, th) != wm {
			t.Fatalf("after recovery: Observe(%s) = %v, skipped %+v, watermark %d (want %d)", th, err, res.Skipped, watermark(t, e, th), wm)
		}
	}
	if bo := e.obs.Backoffs(""); len(bo) != 0 {
		t.Fatalf("Backoffs after recovery %+v, want none", bo)
	}
}
