package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveErasedCountsOnce is closing43's "Observer" note: an erasure
// that cancelled the second run of mnemo observe's observer (observeAll)
// gave "observe: 19 observation(s) stored, then: engine: observation
// cancelled …: t, after 3 observation(s) were stored: …", the command's
// count then the run's. The error now names one count, the command's, and
// still matches ErrObserveCancelled and observe.ErrPartial. The fake's
// 20th call waits for the erasure; each turn is a chunk (a call) of its
// own.
func TestObserveErasedCountsOnce(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	entered, release := make(chan struct{}), make(chan struct{})
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if calls.Add(1) == observe.DefaultMaxRounds+4 {
			close(entered)
			<-release
		}
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"a train leaves at seven","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the server closes, which waits for its handlers
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: model, Threshold: 1, ChunkTokens: 1}})
	var msgs []engine.Message
	for i := range 30 {
		role := []string{engine.RoleUser, engine.RoleAssistant}[i%2]
		msgs = append(msgs, engine.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: fmt.Sprintf("turn %d: the train leaves at seven", i)})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		res *observe.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := observeAll(ctx, e, "t", observe.Options{Force: true, NoReflect: true}, func(*observe.Result) {})
		done <- result{res, err}
	}()
	select {
	case <-entered:
	case got := <-done:
		t.Fatalf("observe ended before its second run's 4th call: %+v, %v", got.res, got.err)
	}
	if _, err := e.DeleteMessages(ctx, "m27"); err != nil {
		t.Fatal(err)
	}
	got := <-done
	free()
	if !errors.Is(got.err, engine.ErrObserveCancelled) || !errors.Is(got.err, observe.ErrPartial) || got.res == nil {
		t.Fatalf("observe = %+v, %v; want a result and ErrObserveCancelled, observe.ErrPartial", got.res, got.err)
	}
	counts := regexp.MustCompile(`(\d+) observation\(s\)`).FindAllStringSubmatch(got.err.Error(), -1)
	if stored := len(got.res.Observations); stored <= observe.DefaultMaxRounds || len(counts) != 1 || counts[0][1] != fmt.Sprint(stored) ||
		strings.Count(got.err.Error(), "stored") != 1 {
		t.Fatalf("observe error %q: want one count, the %d observations the command stored", got.err, stored)
	}
}
