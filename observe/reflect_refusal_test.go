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

func TestReflectorContentRefusal(t *testing.T) { forEachBackend(t, testReflectorContentRefusal) }

// testReflectorContentRefusal is obs70 item 3: the reflector's input (every
// live observation of the thread) cannot be cut, so a refusal of its
// content backs the thread's reflector off, never the observer. Over 20
// observations a minute apart, the thread is observed to its end at every
// one, the reflector is called at 0, 1, 3, 7 and 15 minutes (the back-off
// doubling to 8), never in a loop, the observations stay live, and no
// other call backs off.
func testReflectorContentRefusal(t *testing.T, b backend) {
	const rounds = 20
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		if u := req.Messages[len(req.Messages)-1].Content; strings.HasPrefix(u, "<observations>") && strings.Contains(u, "Mallory") {
			return 403, `fake-observer requires moderation on OpenRouter. Your input was flagged for "harassment".`, 0
		}
		return copying(false)(req)
	})
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 30, Now: clock.now}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	src.add("t", 10, user("Mallory insults the neighbours."), assistant("Noted."))
	for round := range rounds {
		if round > 0 {
			clock.add(time.Minute)
		}
		src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives of bees.", round, round+3)), assistant("Noted."))
		res, err := e.obs.Observe(ctx, "t", observe.Options{})
		if err != nil && !errors.Is(err, observe.ErrContentRefused) {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.Reflection != nil || len(res.Skipped) != 0 {
			t.Fatalf("round %d: reflection %+v, skipped %+v; want neither", round, res.Reflection, res.Skipped)
		}
		if wm := watermark(t, e, "t"); wm != int64(2*round+4) {
			t.Fatalf("round %d: watermark %d, want %d: the reflector's refusal held the observer", round, wm, 2*round+4)
		}
	}
	if calls := reflectorCalls(f); calls != 5 {
		t.Fatalf("%d reflector calls over %d minutes, want 5 (at 0, 1, 3, 7, 15 min)", calls, rounds-1)
	}
	bo := e.obs.Backoffs("")
	if len(bo) != 1 || bo[0].Call != observe.BackoffReflector || bo[0].ThreadID != "t" {
		t.Fatalf("Backoffs %+v, want thread t's reflector only", bo)
	}
	if live := list(t, e, "t", false); len(live) == 0 || !strings.Contains(live[0].Content, "Mallory") {
		t.Fatalf("live observations %+v, want them kept, Mallory's first", live)
	}
}

func TestObserveRangeContentRefusal(t *testing.T) { forEachBackend(t, testObserveRangeContentRefusal) }

// testObserveRangeContentRefusal is obs70 item 3: ObserveRange cannot cut
// its range, so a refusal of its content fails that call alone (one
// request per call, no retry, no loop). It held Observe: the refusal backed
// the thread's observer off on the chunk from the range's first seq, so
// an Observe whose chunk started there waited 1 minute (8 after more
// ObserveRange calls) before it cut the chunk and skipped the refused
// turn. Now ObserveRange records no back-off (it consults none): the next
// Observe cuts and skips at once.
func testObserveRangeContentRefusal(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, moderated("Mallory"))
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 100000, Now: clock.now, Logger: textLogger(&logs)}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	src.add("t", 10, user("Ana keeps bees."), assistant("Noted."), user("Mallory insults the neighbours."),
		assistant("Noted."), user("Ana sells honey."), assistant("Noted."))
	for i := range 3 {
		if _, _, err := e.obs.ObserveRange(ctx, "t", 1, 6); !errors.Is(err, observe.ErrContentRefused) || f.count() != int64(i+1) {
			t.Fatalf("ObserveRange 1..6 #%d: %v, %d requests; want ErrContentRefused, one request a call", i+1, err, f.count())
		}
	}
	if bo := e.obs.Backoffs(""); len(bo) != 0 {
		t.Fatalf("Backoffs %+v after ObserveRange, want none", bo)
	}
	if !strings.Contains(logs.String(), "ObserveRange") {
		t.Fatalf("no WARN line naming ObserveRange:\n%s", logs.String())
	}
	res, err := e.obs.Observe(ctx, "t", observe.Options{})
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].FromSeq != 3 || watermark(t, e, "t") != 6 {
		t.Fatalf("Observe: %v, skipped %+v, watermark %d; want seq 3 skipped at once, watermark 6", err, res.Skipped, watermark(t, e, "t"))
	}
}
