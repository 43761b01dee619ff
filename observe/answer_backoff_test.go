package observe_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
)

// testClock is a Config.Now that a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// badReflector answers the observer as copying does and the reflector
// with text that is not JSON.
func badReflector(req openai.ChatCompletionRequest) (int, string, time.Duration) {
	if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "<observations>") {
		return 200, "I would rather not.", 0
	}
	return copying(false)(req)
}

func TestUnusableAnswerBacksOff(t *testing.T) { forEachBackend(t, testUnusableAnswerBacksOff) }

// testUnusableAnswerBacksOff is obs63 (obs62 item 3's follow-up): a model
// that always answers badly (here: not JSON) was called at every
// observation, one call per Observe (20 over 20 rounds; the reflector
// 19), failing the same way at temperature 0. Now a second unusable
// answer in a row backs the thread's call off 1 minute, then 2, 4, 8 (by
// Config.Now), with a WARN per failed call naming the cause and the wait;
// Force tries at once; the next usable answer observes the whole range.
// The reflector backs off alike.
func testUnusableAnswerBacksOff(t *testing.T, b backend) {
	for _, c := range []struct {
		name   string
		answer func(openai.ChatCompletionRequest) (int, string, time.Duration)
		warn   string
		calls  func(*fakeModel) int
		// want calls over the rounds and the last wait; the observer
		// fails at 0 s (no wait), 10 s (wait 1m), 70 s (2m) and 190 s
		// (4m); the reflector, due from the second observation on, at
		// 10 s, 20 s (1m) and 80 s (2m).
		want     int
		lastWait string
	}{
		{"observer", text("Sorry, I cannot summarise this."), "observer answer unusable again", func(f *fakeModel) int { return int(f.count()) - reflectorCalls(f) }, 4, "4m0s"},
		{"reflector", badReflector, "reflector answer unusable again", reflectorCalls, 3, "2m0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const rounds, step = 20, 10 * time.Second
			clock := &testClock{t: time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)}
			f := newFakeModel(t, c.answer)
			src := &memSource{}
			var logs strings.Builder
			cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 20, Now: clock.now, Logger: textLogger(&logs)}
			e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
			for round := range rounds {
				src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives of bees near the river.", round, round+3)), assistant("Noted."))
				if _, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil && !strings.Contains(err.Error(), "malformed") {
					t.Fatalf("round %d: %v", round, err)
				}
				clock.add(step)
			}
			if n := c.calls(f); n != c.want {
				t.Fatalf("%d %s calls over %d observations %v apart, want %d\n%s", n, c.name, rounds, step, c.want, logs.String())
			}
			if w := strings.Count(logs.String(), c.warn); w != c.want-1 || !strings.Contains(logs.String(), "retryIn="+c.lastWait) || !strings.Contains(logs.String(), "malformed answer") {
				t.Fatalf("%d WARN lines %q, want %d naming the cause and retryIn up to %s:\n%s", w, c.warn, c.want-1, c.lastWait, logs.String())
			}
			// Force tries at once (and fails again: a longer wait).
			if _, err := e.obs.Observe(ctx, "t", observe.Options{Force: true}); err == nil {
				t.Fatal("forced call with the bad model: no error")
			}
			if n := c.calls(f); n != c.want+1 || strings.Count(logs.String(), c.warn) != c.want {
				t.Fatalf("after Force: %d calls, want %d and one more WARN:\n%s", n, c.want+1, logs.String())
			}
			// A usable model after the back-off: the whole range is observed
			// (the reflector's case: reflected) by the next observation.
			f.setAnswer(copying(false))
			src.add("t", 10, user("Ana sells honey on Sundays."), assistant("Noted."))
			if _, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil {
				t.Fatal(err)
			}
			if n := c.calls(f); n != c.want+1 {
				t.Fatalf("%d calls within the back-off, want still %d", n, c.want+1)
			}
			clock.add(8 * time.Minute)
			res, err := e.obs.Observe(ctx, "t", observe.Options{})
			if err != nil {
				t.Fatal(err)
			}
			last := int64(2*rounds + 2)
			if wm := watermark(t, e, "t"); wm != last || (c.name == "reflector") != (res.Reflection != nil) {
				t.Fatalf("after the back-off: watermark %d (want %d), reflection %v", wm, last, res.Reflection != nil)
			}
		})
	}
}
