package observe_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
)

// moderated answers a prompt that holds word as OpenRouter answers a
// flagged input (403, its message saying so), and the rest as copying
// does.
func moderated(word string) func(openai.ChatCompletionRequest) (int, string, time.Duration) {
	return func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, word) {
			return 403, `fake-observer requires moderation on OpenRouter. Your input was flagged for "harassment".`, 0
		}
		return copying(false)(req)
	}
}

func TestContentRefusalBacksOffTheThread(t *testing.T) {
	forEachBackend(t, testContentRefusalBacksOffTheThread)
}

// testContentRefusalBacksOffTheThread is obs67 item 1: a 403 of
// moderation (one request's content flagged) was ErrModelRefused, and
// backed every thread's observer off for 1 to 8 minutes (rev65 #5). Now
// it is ErrContentRefused: thread a's observer backs off from the first
// one (calls at 0, 60 and 180 s over 20 observations 10 s apart), a WARN
// line each naming the thread, while thread b is observed at every
// round.
func testContentRefusalBacksOffTheThread(t *testing.T, b backend) {
	const rounds, step = 20, 10 * time.Second
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated("Mallory"))
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now, Logger: textLogger(&logs)}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	var errA error
	for round := range rounds {
		if round > 0 {
			clock.add(step)
		}
		src.add("a", 10, user(fmt.Sprintf("Round %d: Mallory insults the neighbours.", round)), assistant("Noted."))
		src.add("b", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives.", round, round+3)), assistant("Noted."))
		if _, err := e.obs.Observe(ctx, "a", observe.Options{}); err != nil {
			errA = err
		}
		if _, err := e.obs.Observe(ctx, "b", observe.Options{}); err != nil {
			t.Fatalf("round %d: thread b: %v\n%s", round, err, logs.String())
		}
		if wm := watermark(t, e, "b"); wm != int64(2*round+2) {
			t.Fatalf("round %d: thread b's watermark %d, want %d: held by thread a's refusal\n%s", round, wm, 2*round+2, logs.String())
		}
	}
	if !errors.Is(errA, observe.ErrContentRefused) || errors.Is(errA, observe.ErrModelRefused) {
		t.Fatalf("thread a's error %v, want ErrContentRefused and not ErrModelRefused", errA)
	}
	calls := 0
	for _, req := range f.srv.ChatRequests() {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Mallory") {
			calls++
		}
	}
	if calls != 3 {
		t.Fatalf("thread a: %d calls over %d observations %v apart, want 3 (at 0, 60, 180 s)\n%s", calls, rounds, step, logs.String())
	}
	const warn = "the model endpoint refused the content of one thread's prompt"
	if n := strings.Count(logs.String(), warn); n != 3 || strings.Contains(logs.String(), "refuses the observer's calls") || !strings.Contains(logs.String(), "thread=a") {
		t.Fatalf("%d WARN lines %q (want 3, naming thread a, no endpoint-wide refusal):\n%s", n, warn, logs.String())
	}
	bo := e.obs.Backoffs("")
	if len(bo) != 1 || bo[0].Call != observe.BackoffObserver || bo[0].ThreadID != "a" || !strings.Contains(bo[0].Err, "flagged") {
		t.Fatalf("Backoffs %+v, want thread a's observer only", bo)
	}
}

func TestObserverBackoffEndsWithItsChunk(t *testing.T) {
	forEachBackend(t, testObserverBackoffEndsWithItsChunk)
}

// testObserverBackoffEndsWithItsChunk is obs67 item 2: a thread's
// observer backs off on the chunk it failed on. When another process
// observes that chunk (the watermark moves past it), this process's
// back-off ends at its next observation (it held the thread until its
// Until). A memo hit over another range (ObserveRange of a range
// observed before) does not end a back-off on a later chunk (it did: any
// success of the thread's observer ended it, and the flagged chunk was
// sent again at once).
func testObserverBackoffEndsWithItsChunk(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	f1 := newFakeModel(t, moderated("Mallory"))
	e1 := b.openEnv(t, place, src, f1.model(t), cfg)
	src.add("t", 10, user("Ben met Mallory at the market."), assistant("Noted."))
	if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrContentRefused) {
		t.Fatalf("first observation: %v, want ErrContentRefused", err)
	}
	// Another process, whose endpoint takes the content, observes 1..2.
	f2 := newFakeModel(t, copying(false))
	e2 := b.openEnv(t, place, src, f2.model(t), cfg)
	if _, err := e2.obs.Observe(ctx, "t", observe.Options{}); err != nil || watermark(t, e2, "t") != 2 {
		t.Fatalf("the other process: %v, watermark %d", err, watermark(t, e2, "t"))
	}
	clock.add(10 * time.Second) // within the back-off
	src.add("t", 10, user("Ben sells cheese."), assistant("Noted."))
	if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); err != nil {
		t.Fatal(err)
	}
	if wm := watermark(t, e1, "t"); wm != 4 || f1.count() != 2 {
		t.Fatalf("watermark %d (want 4), %d calls (want 2): the back-off on the chunk from 1 held the chunk from 3", wm, f1.count())
	}
	// A back-off on the chunk from 5; the memo of 1..2 (the other
	// process's) answers ObserveRange without a call, and ends nothing.
	src.add("t", 10, user("Mallory was rude again."), assistant("Noted."))
	if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrContentRefused) {
		t.Fatalf("chunk from 5: %v, want ErrContentRefused", err)
	}
	before := f1.count()
	if _, _, err := e1.obs.ObserveRange(ctx, "t", 1, 2); err != nil || f1.count() != before {
		t.Fatalf("ObserveRange 1..2: %v, %d calls (want none: the memo's)", err, f1.count()-before)
	}
	if bo := e1.obs.Backoffs("t"); len(bo) != 1 {
		t.Fatalf("Backoffs %+v after a memo hit over 1..2, want the back-off on the chunk from 5", bo)
	}
	if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); err != nil || f1.count() != before {
		t.Fatalf("Observe within the back-off: %v, %d calls (want none)", err, f1.count()-before)
	}
}
