package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/server"
)

// TestObserverNUL (walk53): an observer model whose item text holds
// U+0000 (written \u0000 in its JSON) gets its observation stored with a
// space in its place, on both backends, and the prompt carries no NUL.
// On Postgres the chunk failed on every call ("store observation: invalid
// byte sequence for encoding UTF8: 0x00"), so the thread was never
// observed past it; on SQLite the NUL was stored and given to the model.
func TestObserverNUL(t *testing.T) {
	enginetest.ForEachBackend(t, testObserverNUL)
}

func testObserverNUL(t *testing.T, be enginetest.Backend) {
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		answer := `{"observations":[{"text":"The user likes\u0000green tea.","seqs":[1]}]}`
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: answer}}}}, nil
	}))
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, false, server.Config{}, be.Config(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: m}}))
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"I like green tea"},{"role":"assistant","content":"noted"},{"role":"user","content":"bye"},{"role":"assistant","content":"bye"}]}`, 200)
	res, err := h.e.Observe(context.Background(), "t", observe.Options{Force: true, NoReflect: true})
	if res == nil || len(res.Observations) == 0 {
		t.Fatalf("observe: %+v, %v; want the first chunk's observation stored", res, err)
	}
	r := h.ok("GET", "/v1/threads/{thread}/observations", "/v1/threads/t/observations", "", nil, 200)
	if !strings.Contains(string(r.body), `"- The user likes green tea."`) || strings.Contains(string(r.body), `\u0000`) {
		t.Errorf("observations: %s, want the item with a space for the NUL", r.body)
	}
	r = h.ok("POST", "/v1/context", "/v1/context", "", `{"threadId":"t"}`, 200)
	if !strings.Contains(string(r.body), "The user likes green tea.") || strings.Contains(string(r.body), `\u0000`) || strings.Contains(string(r.body), "&#x0;") {
		t.Errorf("context: %.600s, want the observation without a NUL", r.body)
	}
}
