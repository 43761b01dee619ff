package engine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestEraseCancelsAfterStoring: an erasure that cancels an Observe whose
// first round already stored an observation gets that observation back
// in the Result, with an error matching ErrObserveCancelled and
// observe.ErrPartial (it returned a nil Result before, though the
// observation was stored and stays).
func TestEraseCancelsAfterStoring(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		var calls atomic.Int64
		entered, release := make(chan struct{}), make(chan struct{})
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			if calls.Add(1) == 2 { // the second round's call waits for the erasure
				close(entered)
				<-release
			}
			return observerModel(req)
		}))
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		t.Cleanup(free) // before the server closes, which waits for its handlers
		// ChunkTokens 1: each turn is a chunk of its own (a round each).
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 1, ChunkTokens: 1}})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("o1", "first turn about gardens"), user("o2", "second turn about roses"), user("o3", "third turn"),
			user("o4", "fourth turn"), user("o5", "fifth turn"),
		}}); err != nil {
			t.Fatal(err)
		}
		type result struct {
			res *observe.Result
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
			done <- result{res, err}
		}()
		select {
		case <-entered:
		case got := <-done:
			t.Fatalf("Observe ended before its second round's model call: %+v, %v", got.res, got.err)
		}
		if _, err := e.DeleteMessages(ctx, "o2"); err != nil {
			t.Fatal(err)
		}
		got := <-done
		free()
		if !errors.Is(got.err, engine.ErrObserveCancelled) || !errors.Is(got.err, observe.ErrPartial) {
			t.Fatalf("Observe = %v, want ErrObserveCancelled and observe.ErrPartial", got.err)
		}
		if got.res == nil || len(got.res.Observations) != 1 || got.res.Observations[0].ToSeq != 1 {
			t.Fatalf("Observe's result %+v, want the observation of seq 1 stored before the erasure", got.res)
		}
		stored, err := e.Observations(ctx, observe.Filter{ThreadID: "t", IDs: []string{got.res.Observations[0].ID}})
		if err != nil || len(stored) != 1 {
			t.Fatalf("the observation the result lists is not stored and live: %+v, err %v", stored, err)
		}
	})
}
