package observe_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// status answers every request with an HTTP error status and message.
func status(code int, msg string) func(openai.ChatCompletionRequest) (int, string, time.Duration) {
	return func(openai.ChatCompletionRequest) (int, string, time.Duration) { return code, msg, 0 }
}

// tooLongReflector answers the reflector as a model whose context its
// input overflows, and the observer as copying does.
func tooLongReflector(req openai.ChatCompletionRequest) (int, string, time.Duration) {
	if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "<observations>") {
		return 400, "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.", 0
	}
	return copying(false)(req)
}

func TestModelRefusalBacksOff(t *testing.T) { forEachBackend(t, testModelRefusalBacksOff) }

// testModelRefusalBacksOff is obs64 item 1: an HTTP 4xx of the endpoint
// other than 408, 409 and 429 was a bare ErrModel, tried again at every
// observation (20 calls over 20 observations 10 s apart). Now a refused
// key or model (401, 404) backs every thread's calls off from the first
// failure (1, 2, 4 minutes: calls at 0, 60 and 180 s), logged at WARN
// once; a prompt the endpoint rejects (another 400) and a reflector input
// over the context back off as an unusable answer does (calls at 0, 10,
// 70, 190 s; the reflector's from 10 s). Result.Backoffs says until when.
func testModelRefusalBacksOff(t *testing.T, b backend) {
	const key = "the model endpoint refuses the observer's calls"
	for _, c := range []struct {
		name   string
		answer func(openai.ChatCompletionRequest) (int, string, time.Duration)
		is     error
		calls  func(*fakeModel) int
		want   int
		call   string
		warns  int // lines naming key
	}{
		{"401", status(401, "Incorrect API key provided."), observe.ErrModelRefused, func(f *fakeModel) int { return int(f.count()) }, 3, observe.BackoffModel, 1},
		{"404", status(404, "The model `fake-observer` does not exist."), observe.ErrModelRefused, func(f *fakeModel) int { return int(f.count()) }, 3, observe.BackoffModel, 1},
		{"400", status(400, "Invalid value for 'response_format'."), observe.ErrRequestRejected, func(f *fakeModel) int { return int(f.count()) }, 4, observe.BackoffObserver, 0},
		{"reflector-too-long", tooLongReflector, observe.ErrInputTooLong, reflectorCalls, 3, observe.BackoffReflector, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			const rounds, step = 20, 10 * time.Second
			clock := &testClock{t: time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)}
			f := newFakeModel(t, c.answer)
			src := &memSource{}
			var logs strings.Builder
			cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 20, Now: clock.now, Logger: textLogger(&logs)}
			e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
			var matched bool
			var last *observe.Result
			for round := range rounds {
				if round > 0 {
					clock.add(step)
				}
				src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives of bees near the river.", round, round+3)), assistant("Noted."))
				res, err := e.obs.Observe(ctx, "t", observe.Options{})
				if err != nil && !errors.Is(err, observe.ErrModel) {
					t.Fatalf("round %d: %v", round, err)
				}
				matched = matched || errors.Is(err, c.is)
				last = res
			}
			if n := c.calls(f); n != c.want || !matched {
				t.Fatalf("%d calls over %d observations %v apart, want %d; an error matching %v: %v\n%s", n, rounds, step, c.want, c.is, matched, logs.String())
			}
			if w := strings.Count(logs.String(), key); w != c.warns {
				t.Fatalf("%d WARN lines %q, want %d:\n%s", w, key, c.warns, logs.String())
			}
			// The line tells the waits as backoffWait doubles them
			// (readme68 F12: it said "at most one every 8 minutes").
			if c.warns > 0 && (!strings.Contains(logs.String(), "(2, 4, then 8 minutes, 8 from then on)") || strings.Contains(logs.String(), "at most one every")) {
				t.Fatalf("the WARN line does not tell the doubling waits:\n%s", logs.String())
			}
			// The last result says which call waits, and until when: past
			// the last round.
			bo := last.Backoffs
			if len(bo) != 1 || bo[0].Call != c.call || !bo[0].Until.After(clock.now()) || !strings.Contains(bo[0].Err, c.is.Error()) {
				t.Fatalf("Result.Backoffs %+v, want one %s backing off past the last round, its error matching %v", bo, c.call, c.is)
			}
			if got := e.obs.Backoffs("t"); len(got) != 1 || !got[0].Until.Equal(bo[0].Until) {
				t.Fatalf("Backoffs(t) %+v, want %+v", got, bo)
			}
			// A refused endpoint holds every thread's calls; a thread's
			// back-off holds its own only.
			before := f.count()
			src.add("u", 10, user("Ben keeps goats."), assistant("Noted."), user("Ben sells cheese."), assistant("Noted."))
			_, _ = e.obs.Observe(ctx, "u", observe.Options{})
			if called := f.count() > before; called != (c.call != observe.BackoffModel) {
				t.Fatalf("another thread's observer called: %v (backing off: %s)", called, c.call)
			}
		})
	}
}

func TestChunkOverContextIsCut(t *testing.T) { forEachBackend(t, testChunkOverContextIsCut) }

// testChunkOverContextIsCut is obs64 item 1's context length: a chunk
// over the model's context (HTTP 400, its message naming the maximum
// context length) failed the observation, and was sent again at every
// observation. Now the observer sends half of it at once while it is too
// long (30 turns, 14, then 6), and keeps later chunks within that: two
// 400s in all, every turn observed by the one Observe, no back-off.
func testChunkOverContextIsCut(t *testing.T, b backend) {
	const window = 8 // turns the fake model's context holds
	var tooLong atomic.Int32
	answer := func(req openai.ChatCompletionRequest) (int, string, time.Duration) {
		if n := strings.Count(req.Messages[len(req.Messages)-1].Content, `"seq"`); n > window {
			tooLong.Add(1)
			return 400, fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", window*10, n*10), 0
		}
		return copying(false)(req)
	}
	f := newFakeModel(t, answer)
	src := &memSource{}
	var logs strings.Builder
	cfg := observe.Config{Threshold: 10, ChunkTokens: 300, RecentN: -1, ReflectThreshold: 100000, Logger: textLogger(&logs)}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	for round := range 15 {
		src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives.", round, round+3)), assistant("Noted."))
	}
	if _, err := e.obs.Observe(ctx, "t", observe.Options{}); err != nil {
		t.Fatal(err)
	}
	if wm := watermark(t, e, "t"); wm != 30 || tooLong.Load() != 2 {
		t.Fatalf("watermark %d (want 30), %d answers over the context (want 2):\n%s", wm, tooLong.Load(), logs.String())
	}
	if !strings.Contains(logs.String(), "observer chunk over the model's context length") || len(e.obs.Backoffs("")) != 0 {
		t.Fatalf("want the cut logged and no back-off (%+v):\n%s", e.obs.Backoffs(""), logs.String())
	}
}

func TestReflectDueAgreesWithBackoff(t *testing.T) {
	forEachBackend(t, testReflectDueAgreesWithBackoff)
}

// testReflectDueAgreesWithBackoff is obs64 item 3: ReflectDue said due
// for a thread whose reflector was backing off, so the engine's walk read
// the observations for a Reflect that then called nothing.
func testReflectDueAgreesWithBackoff(t *testing.T, b backend) {
	clock := &testClock{t: time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)}
	f := newFakeModel(t, badReflector)
	src := &memSource{}
	cfg := observe.Config{Threshold: 10, ChunkTokens: 1000, RecentN: -1, ReflectThreshold: 20, Now: clock.now}
	e := b.openEnv(t, b.Place(t), src, f.model(t), cfg)
	for round := range 3 {
		src.add("t", 10, user(fmt.Sprintf("Round %d: Ana keeps %d hives of bees near the river.", round, round+3)), assistant("Noted."))
		_, _ = e.obs.Observe(ctx, "t", observe.Options{})
		clock.add(10 * time.Second)
	}
	if len(e.obs.Backoffs("t")) != 1 {
		t.Fatalf("Backoffs %+v, want the reflector's", e.obs.Backoffs("t"))
	}
	if due, err := e.obs.ReflectDue(ctx, "t"); err != nil || due {
		t.Fatalf("ReflectDue while the reflector backs off: %v, %v; want false", due, err)
	}
	clock.add(time.Hour)
	if due, err := e.obs.ReflectDue(ctx, "t"); err != nil || !due {
		t.Fatalf("ReflectDue after the back-off: %v, %v; want true", due, err)
	}
}

// TestOpenAIModelRefusal: the kind of each HTTP error status that is not
// retried, as the real go-openai client reads the endpoint's error body;
// a retried one (429, 5xx) and a transport error match none.
func TestOpenAIModelRefusal(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply openaitest.Reply
		want  error // nil: none of the four
	}{
		{"401", openaitest.Error(401, "Incorrect API key provided."), observe.ErrModelRefused},
		{"402", openaitest.Error(402, "You exceeded your current quota."), observe.ErrModelRefused},
		{"403", openaitest.Error(403, "Project does not have access to model."), observe.ErrModelRefused},
		{"404", openaitest.Error(404, "The model `m` does not exist."), observe.ErrModelRefused},
		{"403-moderation", openaitest.Error(403, `m requires moderation on OpenRouter. Your input was flagged for "harassment".`), observe.ErrContentRefused},
		{"400-azure", openaitest.Reply{Status: 400, Raw: []byte(`{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":true,"severity":"high"}}}}}`)}, observe.ErrContentRefused},
		{"400-invalid-prompt", openaitest.Reply{Err: &openaitest.StatusError{Status: 400, Message: "Invalid prompt: your prompt was flagged as potentially violating our usage policy.", Code: "invalid_prompt"}}, observe.ErrContentRefused},
		{"400-code", openaitest.Reply{Err: &openaitest.StatusError{Status: 400, Message: "Too long.", Code: "context_length_exceeded"}}, observe.ErrInputTooLong},
		{"400-llamacpp", openaitest.Error(400, "the request exceeds the available context size, try increasing it"), observe.ErrInputTooLong},
		{"413", openaitest.Error(413, "Request too large."), observe.ErrInputTooLong},
		{"400", openaitest.Error(400, "Invalid value for 'response_format'."), observe.ErrRequestRejected},
		{"422", openaitest.Error(422, "Unprocessable."), observe.ErrRequestRejected},
		{"429", openaitest.Error(429, "Rate limit reached."), nil},
		{"503", openaitest.Error(503, "Overloaded."), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(c.reply)
			m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "m", Attempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Complete(ctx, observe.Prompt{System: "s", User: "u", JSON: true})
			if !errors.Is(err, observe.ErrModel) {
				t.Fatalf("err %v, want observe.ErrModel", err)
			}
			for _, kind := range []error{observe.ErrModelRefused, observe.ErrContentRefused, observe.ErrInputTooLong, observe.ErrRequestRejected} {
				if got := errors.Is(err, kind); got != (kind == c.want) {
					t.Errorf("errors.Is(%v, %v) = %v", err, kind, got)
				}
			}
		})
	}
}
