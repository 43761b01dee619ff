package observe_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

func TestOpenAIModelRetry(t *testing.T) {
	t.Run("TransientRetried", func(t *testing.T) {
		var n int
		f := newFakeModel(t, func(openai.ChatCompletionRequest) (int, string, time.Duration) {
			n++
			if n < 3 {
				return 429, "slow down", 0
			}
			return 200, "ok", 0
		})
		m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: f.url, APIKey: openaitest.DefaultAPIKey, Model: "m", Backoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Complete(ctx, observe.Prompt{System: "s", User: "u", JSON: true})
		if err != nil || got != "ok" {
			t.Fatalf("got %q, %v", got, err)
		}
		if got, want := f.count(), int64(3); got != want {
			t.Fatalf("requests=%d, want %d", got, want)
		}
		if rf := f.last().ResponseFormat; rf == nil || rf.Type != openai.ChatCompletionResponseFormatTypeJSONObject {
			t.Fatalf("response_format = %+v, want json_object", rf)
		}
	})
	t.Run("ClientErrorNotRetried", func(t *testing.T) {
		f := newFakeModel(t, func(openai.ChatCompletionRequest) (int, string, time.Duration) { return 400, "bad", 0 })
		m, _ := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: f.url, APIKey: openaitest.DefaultAPIKey, Model: "m", Backoff: time.Millisecond})
		_, err := m.Complete(ctx, observe.Prompt{System: "s", User: "u"})
		var api *openai.APIError
		if !errors.Is(err, observe.ErrModel) || !errors.As(err, &api) || api.HTTPStatusCode != 400 {
			t.Fatalf("err = %v, want ErrModel wrapping a 400 APIError", err)
		}
		if got, want := f.count(), int64(1); got != want {
			t.Fatalf("requests=%d, want %d", got, want)
		}
	})
	t.Run("ErrConfig", func(t *testing.T) {
		if _, err := observe.NewOpenAIModel(observe.OpenAIConfig{}); !errors.Is(err, observe.ErrConfig) {
			t.Fatalf("err = %v, want ErrConfig", err)
		}
	})
}

// TestOpenAIModelCutShortOneLine: a call whose context ends, in flight or
// while it waits to retry, fails with one line wrapping ErrModel, the
// context's error and the last attempt's; errors.Join wrote the last two
// on two lines ("…: context deadline exceeded\nPost …"), which split the
// message of mnemo observe and a log line.
func TestOpenAIModelCutShortOneLine(t *testing.T) {
	t.Run("InFlight", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Enqueue(openaitest.Text("late").WithDelay(time.Minute))
		m, _ := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "m", Attempts: 1})
		cx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := m.Complete(cx, observe.Prompt{System: "s", User: "u"})
		checkCutShort(t, err)
	})
	t.Run("WaitingToRetry", func(t *testing.T) {
		f := newFakeModel(t, func(openai.ChatCompletionRequest) (int, string, time.Duration) { return 503, "busy", 0 })
		m, _ := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: f.url, APIKey: openaitest.DefaultAPIKey, Model: "m", Attempts: 3, Backoff: time.Minute})
		cx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := m.Complete(cx, observe.Prompt{System: "s", User: "u"})
		checkCutShort(t, err)
		var api *openai.APIError
		if !errors.As(err, &api) || api.HTTPStatusCode != 503 {
			t.Errorf("err = %v, want the last attempt's 503 APIError in its chain", err)
		}
	})
}

func checkCutShort(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, observe.ErrModel) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrModel and context.DeadlineExceeded", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "(the last attempt: ") {
		t.Errorf("err = %q, want one line naming the last attempt", msg)
	}
}
