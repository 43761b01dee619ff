package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveBackgroundResumes: a thread left over the threshold by a
// process whose model failed (closed before it could observe it) is
// observed by the next process's background observer without a new
// append, behind more than one page of threads that are not due (the
// walk reads threads in resource order).
func TestObserveBackgroundResumes(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "model down"}
		}))
		cfg := be.NewStore(t).Config(engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{
			Model: newObserverModel(t, srv), Threshold: 20, Background: true}})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		appendTurns(t, e, "t", 12) // resource "r"
		waitFor(t, "the failing model to be called", func() bool { return srv.Count("/v1/chat/completions") > 0 })
		for i := range 120 { // more than a page of the walk before t's (resource "a" < "r"), none due
			appendTo(t, e, fmt.Sprintf("a%03d", i), "a", user("", "a note"))
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		srv.SetChat(observerModel)
		e = enginetest.MustOpen(t, cfg)
		waitFor(t, "thread t to be observed without an append", func() bool {
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			return len(obs) > 0
		})
		for i := range 120 {
			id := fmt.Sprintf("a%03d", i)
			if obs, err := e.Observations(ctx, observe.Filter{ThreadID: id}); err != nil || len(obs) > 0 {
				t.Fatalf("thread %s under the threshold: %d observations, err %v", id, len(obs), err)
			}
		}
	})
}

// TestObserveBackgroundResumesReflection: a thread whose observations an
// earlier process stored but whose reflection it did not make (its
// reflector failed, then it was closed: a crash between observing and
// reflecting) is reflected by the next process's background observer
// without a new append, though its observer is not due (only the recent
// window follows the watermark).
func TestObserveBackgroundResumesReflection(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "<observations>") {
				return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "reflector down"}
			}
			return observerModel(req)
		}))
		oc := engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 20, ReflectThreshold: 30}
		cfg := be.NewStore(t).Config(engine.Config{RecentN: 2, Observe: &oc})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		appendTurns(t, e, "t", 12)
		if _, err := e.Observe(ctx, "t", observe.Options{Force: true}); !errors.Is(err, observe.ErrPartial) || !errors.Is(err, observe.ErrModel) {
			t.Fatalf("observe with the reflector down: %v, want observations stored and the reflector failed", err)
		}
		obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t"})
		if err != nil || len(obs) < 2 || obs[len(obs)-1].ToSeq != 10 {
			t.Fatalf("observations %+v, err %v: want turns 1..10 observed (12 turns, RecentN 2)", obs, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		srv.SetChat(observerModel)
		background := oc
		background.Background = true
		cfg.Observe = &background
		e = enginetest.MustOpen(t, cfg)
		waitFor(t, "thread t to be reflected without an append", func() bool {
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			return slices.ContainsFunc(obs, func(o observe.Observation) bool { return o.Level == observe.LevelReflection })
		})
	})
}

// TestObserveBackgroundQueueOverflow: threads kicked while the background
// observer's queue is full (a burst of appends to more threads than
// DefaultObserveQueue while the model hangs) are observed once the model
// answers, without another append; the kick was dropped before and those
// threads waited for their next append or the next process.
func TestObserveBackgroundQueueOverflow(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		<-release
		return observerModel(req)
	}))
	cfg := engine.Config{Dir: t.TempDir(), RecentN: 2, Observe: &engine.ObserveConfig{
		Model: newObserverModel(t, srv), Threshold: 20, Background: true}}
	e := enginetest.MustOpen(t, cfg)
	threads := engine.DefaultObserveQueue + 10
	appendTurns(t, e, "t000", 12)
	waitFor(t, "the first observation's model call", func() bool { return srv.Count("/v1/chat/completions") > 0 })
	for i := 1; i < threads; i++ { // the queue fills behind the hung call
		appendTurns(t, e, fmt.Sprintf("t%03d", i), 12)
	}
	close(release)
	for i := range threads {
		id := fmt.Sprintf("t%03d", i)
		waitFor(t, "thread "+id+" to be observed", func() bool {
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: id})
			if err != nil {
				t.Fatal(err)
			}
			return len(obs) > 0
		})
	}
}
