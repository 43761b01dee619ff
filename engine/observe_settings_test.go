package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveMaxAnswerTokens: ObserveConfig.MaxAnswerTokens reaches the
// model as max_tokens (0: observe.DefaultMaxAnswerTokens), and one above
// observe.MaxAnswerTokensLimit is a *ValidationError naming it. There was
// no such field: every call asked for 4,096 tokens, and an answer cut at
// max_tokens said to lower the chunk, the one setting there was.
func TestObserveMaxAnswerTokens(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ set, want int }{{0, observe.DefaultMaxAnswerTokens}, {777, 777}} {
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		e := enginetest.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10, MaxAnswerTokens: c.set}})
		appendTurns(t, e, "t", 10)
		if _, err := e.Observe(ctx, "t", observe.Options{Force: true}); err != nil {
			t.Fatal(err)
		}
		req, ok := srv.LastChat()
		if got := req.MaxTokens; !ok || got != c.want {
			t.Fatalf("MaxAnswerTokens %d: max_tokens=%d (a request: %v), want %d", c.set, got, ok, c.want)
		}
	}
	_, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), Observe: &engine.ObserveConfig{MaxAnswerTokens: observe.MaxAnswerTokensLimit + 1}})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "Observe.MaxAnswerTokens" {
		t.Fatalf("Open with MaxAnswerTokens above the limit: %v, want a *ValidationError on Observe.MaxAnswerTokens", err)
	}
}

// TestObserveBackoffsInStats: the observer's back-offs are in Stats (a
// thread's calls waiting; the endpoint refusing every call, with until
// when), and an erasure of the thread drops its entries (obs64 items 2
// and 5): they were visible nowhere but the WARN lines, and an erased
// thread's stayed in the observer's map until a restart.
func TestObserveBackoffsInStats(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text("I would rather not.").Response, nil
	}))
	e := enginetest.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10}})
	appendTurns(t, e, "t", 10)
	for range 2 { // a second unusable answer in a row backs off
		if _, err := e.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrMalformedAnswer) {
			t.Fatalf("Observe: %v, want observe.ErrMalformedAnswer", err)
		}
	}
	res, err := e.Observe(ctx, "t", observe.Options{})
	if err != nil || len(res.Backoffs) != 1 || res.Backoffs[0].Call != observe.BackoffObserver || !res.Backoffs[0].Until.After(time.Now()) {
		t.Fatalf("Observe within the back-off: %v, Backoffs %+v, want the observer's, until later", err, res)
	}
	st, err := e.Stats(ctx)
	if err != nil || st.ObserveBackoffs != 1 || st.ObserveRefused != nil {
		t.Fatalf("Stats %+v, %v: want 1 back-off, no refusal", st, err)
	}
	if _, err := e.DeleteThread(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if st, err := e.Stats(ctx); err != nil || st.ObserveBackoffs != 0 {
		t.Fatalf("Stats after the thread's erasure %+v, %v: want no back-off", st, err)
	}
	// An endpoint refusing the key: every call waits, and Stats says
	// until when.
	srv.SetChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 401, Message: "Incorrect API key provided."}
	})
	appendTurns(t, e, "u", 10)
	if _, err := e.Observe(ctx, "u", observe.Options{}); !errors.Is(err, observe.ErrModelRefused) {
		t.Fatalf("Observe: %v, want observe.ErrModelRefused", err)
	}
	if st, err := e.Stats(ctx); err != nil || st.ObserveRefused == nil || !st.ObserveRefused.Until.After(time.Now()) || st.ObserveBackoffs != 0 {
		t.Fatalf("Stats %+v, %v: want the refusal, until later", st, err)
	}
}
