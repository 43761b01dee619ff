package server_test

import (
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/server"
)

// downObserver is an observer model whose endpoint answers 503 to every
// call: the observer stays behind.
func downObserver(t *testing.T) observe.Model {
	t.Helper()
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
	}))
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestContextAnswerTooLargeUnobserved: POST /v1/context whose recent
// window passes limits.maxAnswerBytes because it holds the thread's
// unobserved tail (observational memory on, the observer behind) answers
// 422 answer-too-large naming no field and saying what shrinks it (the
// observer catching up, observe.maxUnobservedTokens); it said "lower
// recentN" with field recentN, which changes nothing.
func TestContextAnswerTooLargeUnobserved(t *testing.T) {
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000},
		Observe: &engine.ObserveConfig{Model: downObserver(t), MaxUnobservedTokens: engine.NoUnobservedBound}})
	var texts []string
	for i := range 6 {
		texts = append(texts, strings.Repeat("lantern ", 30_000/8)+itoa(i))
	}
	h.seed("t1", "r1", "", texts...)
	// The 6 messages are in the observer's recent window (10): the hint
	// was "the observer is behind" and plain mnemo observe, which observes
	// nothing there, nor with --force unless --recent is lower.
	p := h.ok("POST", "/v1/context", "/v1/context", "", map[string]any{"threadId": "t1", "recentN": 1}, 422).problem(t)
	want := "the recent window passes 100000 bytes (the server's limits.maxAnswerBytes): it holds the 6 messages of the thread the observer has not distilled yet, whatever recentN; the observer never observes the server's recent window, and it holds them all: once it observes the thread (mnemo observe --force --recent N, N below the server's recentN)"
	if !strings.HasSuffix(p.Type, "/answer-too-large") || p.Field != "" || !strings.HasPrefix(p.Detail, want) || !strings.Contains(p.Detail, "observe.maxUnobservedTokens") {
		t.Fatalf("unobserved window over the bound: %+v\nwant no field and a detail starting %q", p, want)
	}
}

// TestContextAnswerTooLargePending: POST /v1/context whose thread ends in
// a pending turn (five user messages of 30 KB no answer follows) over
// limits.maxAnswerBytes answers 422 answer-too-large naming the pending
// turn and no field: the window holds the whole turn whatever recentN,
// and it was read uncounted (recentN 1 answered 150 KB under a bound of
// 100 KB).
func TestContextAnswerTooLargePending(t *testing.T) {
	var pending []map[string]any
	for i := range 5 {
		pending = append(pending, map[string]any{"role": "user", "content": strings.Repeat("harbour ", 30_000/8) + itoa(i)})
	}
	h2 := newHarnessOn(t, false, server.Config{}, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000}})
	h2.seed("t2", "r1", "", "hello", "hi")
	h2.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t2/messages", "", map[string]any{"resourceId": "r1", "messages": pending}, 200)
	p := h2.ok("POST", "/v1/context", "/v1/context", "", map[string]any{"threadId": "t2", "recentN": 1}, 422).problem(t)
	if p.Field != "" || !strings.HasPrefix(p.Detail, "the thread's pending turn (5 messages no assistant answer follows yet") {
		t.Fatalf("pending turn over the bound: %+v, want no field and the pending turn named", p)
	}
}
