package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestAnswerBound: memory_search and memory_context whose turns pass the
// engine's Limits.MaxAnswerBytes fail as "Answer too large" naming topK,
// the argument the tools take (not recall.topK, nor messageRange, which
// they fix), or recentN when memory_context's recent window alone passes
// it, and answer within the bound.
func TestAnswerBound(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000}})
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	var msgs []map[string]any
	for i := range 6 {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("harbour note %d ", i) + strings.Repeat("lantern ", 30_000/8)})
	}
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": msgs}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	if failed, text := call(t, cs, "memory_search", map[string]any{"query": "harbour note 5", "topK": 1}, nil); failed {
		t.Fatalf("topK 1: %s", text)
	}
	// The wordings docs/serve.md's MCP paragraph quotes.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_search", map[string]any{"query": "harbour lantern", "topK": 6}, "lower topK (field topK)"},
		{"memory_context", map[string]any{"threadId": "t1", "query": "harbour lantern", "recentN": 1, "topK": 5}, "lower topK or recentN (field topK)"},
		// The recent window alone passes the bound: recall never ran.
		{"memory_context", map[string]any{"threadId": "t1", "query": "harbour lantern", "recentN": 6}, "lower recentN (field recentN)"},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.HasPrefix(text, "Answer too large") || !strings.HasSuffix(text, c.want) {
			t.Errorf("%s %v: failed %v, %q; want Answer too large ending %q", c.tool, c.args, failed, text, c.want)
		}
	}
}

// TestAnswerBoundUnobserved: memory_context whose recent window passes
// the bound because it holds the thread's unobserved tail (the observer
// behind) fails naming the observer and no argument: it said "lower
// recentN (field recentN)", which changes nothing.
func TestAnswerBoundUnobserved(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
	}))
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000},
		Observe: &engine.ObserveConfig{Model: m, MaxUnobservedTokens: engine.NoUnobservedBound}})
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	var msgs []map[string]any
	for i := range 6 {
		msgs = append(msgs, map[string]any{"role": []string{"user", "assistant"}[i%2], "content": fmt.Sprintf("harbour note %d ", i) + strings.Repeat("lantern ", 30_000/8)})
	}
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": msgs}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t1", "recentN": 1}, nil)
	want := "Answer too large: the recent window passes 100000 bytes (the server's limits.maxAnswerBytes): it holds the 6 messages of the thread the observer has not distilled yet, whatever recentN; the observer never observes the server's recent window, and it holds them all: once it observes the thread (mnemo observe --force --recent N, N below the server's recentN)"
	if !failed || !strings.HasPrefix(text, want) || strings.Contains(text, "(field") {
		t.Fatalf("failed %v, %q\nwant a text starting %q and naming no field", failed, text, want)
	}
}
