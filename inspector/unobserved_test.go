package inspector_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestRunUnobservedLeftOut: a run whose window left out unobserved turns
// (the observer's model down, a small bound) shows the listed ones as
// dropped with reason unobserved and says how many more it counted, and
// its replay reproduces the prompt.
func TestRunUnobservedLeftOut(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
	}))
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir(), RecentN: 2, Observe: &engine.ObserveConfig{Model: m, MaxUnobservedTokens: 100}})
	var ms []engine.Message
	for i := range 60 {
		role := engine.RoleUser
		if i%2 == 1 {
			role = engine.RoleAssistant
		}
		ms = append(ms, engine.Message{Role: role, Content: fmt.Sprintf("turn %d with some words", i)})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
		t.Fatal(err)
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run", ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	unlisted := c.MemCtx.DroppedCount - len(c.MemCtx.Dropped)
	if unlisted <= 0 {
		t.Fatalf("dropped %d, listed %d: want some unlisted", c.MemCtx.DroppedCount, len(c.MemCtx.Dropped))
	}
	var b bytes.Buffer
	if err := inspector.WriteRun(ctx, &b, e, "run", "test"); err != nil {
		t.Fatal(err)
	}
	page := unwrapped(b.String())
	for _, want := range []string{"dropped · unobserved", fmt.Sprintf("and %d older unobserved turns, counted but not listed", unlisted)} {
		if !strings.Contains(page, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	if strings.Contains(page, "diverged") {
		t.Errorf("the replay diverged")
	}
}
