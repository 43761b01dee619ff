package engine_test

import (
	"context"
	"errors"
	"testing"

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
