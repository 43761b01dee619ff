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

func TestContentRefusalSkipsTheTurn(t *testing.T) {
	forEachBackend(t, testContentRefusalSkipsTheTurn)
}

// testContentRefusalSkipsTheTurn is obs67 item 1 and obs68: a 403 of
// moderation (one request's content flagged) was ErrModelRefused, and
// backed every thread's observer off for 1 to 8 minutes (rev65 #5); then
// it backed thread a's observer off and the flagged chunk was sent again
// every 8 minutes for ever, the thread never observed past it. Now the
// chunk is cut in two until the flagged turn is alone, and that turn is
// skipped: over 20 observations 10 s apart, each round's flagged turn is
// sent twice (in its chunk, then alone), never again; both threads are
// observed to their end at every round, a WARN line each skip naming
// thread a, no back-off.
func testContentRefusalSkipsTheTurn(t *testing.T, b backend) {
	const rounds, step = 20, 10 * time.Second
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated("Mallory"))
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now, Logger: textLogger(&logs)}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	for round := range rounds {
		if round > 0 {
			clock.add(step)
		}
		src.add("a", 10, user(fmt.Sprintf("Round %d: Mallory insults the neighbours.", round)), assistant("Noted."))
		src.add("b", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives.", round, round+3)), assistant("Noted."))
		res, err := e.obs.Observe(ctx, "a", observe.Options{})
		if err != nil {
			t.Fatalf("round %d: thread a: %v\n%s", round, err, logs.String())
		}
		if len(res.Skipped) != 1 || res.Skipped[0].FromSeq != int64(2*round+1) || res.Skipped[0].Reason != observe.SkipContentRefused {
			t.Fatalf("round %d: Skipped %+v, want seq %d", round, res.Skipped, 2*round+1)
		}
		if _, err := e.obs.Observe(ctx, "b", observe.Options{}); err != nil {
			t.Fatalf("round %d: thread b: %v\n%s", round, err, logs.String())
		}
		for _, th := range []string{"a", "b"} {
			if wm := watermark(t, e, th); wm != int64(2*round+2) {
				t.Fatalf("round %d: thread %s's watermark %d, want %d\n%s", round, th, wm, 2*round+2, logs.String())
			}
		}
	}
	if calls := flaggedCalls(f, "Mallory"); calls != 2*rounds {
		t.Fatalf("thread a: the flagged turns sent %d times over %d rounds, want %d (in its chunk, then alone)\n%s", calls, rounds, 2*rounds, logs.String())
	}
	const warn = "the observer skips them"
	if n := strings.Count(logs.String(), warn); n != rounds || strings.Contains(logs.String(), "refuses the observer's calls") || !strings.Contains(logs.String(), "thread=a") {
		t.Fatalf("%d WARN lines %q (want %d, naming thread a, no endpoint-wide refusal):\n%s", n, warn, rounds, logs.String())
	}
	if bo := e.obs.Backoffs(""); len(bo) != 0 {
		t.Fatalf("Backoffs %+v, want none", bo)
	}
	if sk, err := observe.Skips(ctx, e.db, "a"); err != nil || len(sk) != rounds {
		t.Fatalf("Skips(a) = %d, %v; want %d", len(sk), err, rounds)
	}
}

// flaggedCalls counts the chat requests f answered whose prompt holds word.
func flaggedCalls(f *fakeModel, word string) int {
	n := 0
	for _, req := range f.srv.ChatRequests() {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, word) {
			n++
		}
	}
	return n
}

func TestObserverBackoffEndsWithItsChunk(t *testing.T) {
	forEachBackend(t, testObserverBackoffEndsWithItsChunk)
}

// garbling answers a prompt that holds word with what is not JSON
// (ErrMalformedAnswer: the thread's observer backs off from the second
// in a row), and the rest as copying does.
func garbling(word string) func(openai.ChatCompletionRequest) (int, string, time.Duration) {
	return func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, word) {
			return 200, "not json", 0
		}
		return copying(false)(req)
	}
}

// testObserverBackoffEndsWithItsChunk is obs67 item 2: a thread's
// observer backs off on the chunk it failed on. When another process
// observes that chunk (the watermark moves past it), this process's
// back-off ends at its next observation (it held the thread until its
// Until). A memo hit over another range (ObserveRange of a range
// observed before) does not end a back-off on a later chunk (it did: any
// success of the thread's observer ended it, and the failing chunk was
// sent again at once). A content refusal no longer backs off (it is cut,
// then skipped: testContentRefusalSkipsTheTurn); two malformed answers in
// a row do.
func testObserverBackoffEndsWithItsChunk(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	place := b.Place(t)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now}
	f1 := newFakeModel(t, garbling("Mallory"))
	e1 := b.openEnv(t, place, src, f1.model(t), cfg)
	src.add("t", 10, user("Ben met Mallory at the market."), assistant("Noted."))
	for range 2 {
		if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrMalformedAnswer) {
			t.Fatalf("first observations: %v, want ErrMalformedAnswer", err)
		}
	}
	// Another process, whose endpoint answers, observes 1..2.
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
	if wm := watermark(t, e1, "t"); wm != 4 || f1.count() != 3 {
		t.Fatalf("watermark %d (want 4), %d calls (want 3): the back-off on the chunk from 1 held the chunk from 3", wm, f1.count())
	}
	// A back-off on the chunk from 5; the memo of 1..2 (the other
	// process's) answers ObserveRange without a call, and ends nothing.
	src.add("t", 10, user("Mallory was rude again."), assistant("Noted."))
	for range 2 {
		if _, err := e1.obs.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrMalformedAnswer) {
			t.Fatalf("chunk from 5: %v, want ErrMalformedAnswer", err)
		}
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
