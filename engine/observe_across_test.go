package engine_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// observeAcrossConfig observes thread "t" of 24 turns in several chunks.
func observeAcrossConfig(model observe.Model, background bool) engine.Config {
	return engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: model, Threshold: 20, ChunkTokens: 40, Background: background}}
}

// liveObservationCount returns how many live observations thread "t" has.
func liveObservationCount(t *testing.T, e *engine.Engine) int {
	t.Helper()
	obs, err := e.Observations(context.Background(), observe.Filter{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return len(obs)
}

// TestObserveOneObserverPerThread: two observers of one thread at once,
// two engines on one Postgres schema (two processes) or two calls on one
// SQLite engine (a directory has one process), call the model once per
// chunk: the second waits for the first, then finds the thread observed.
// On Postgres both called the model for every chunk (walk35: 10 calls for
// 5 observations).
func TestObserveOneObserverPerThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			time.Sleep(50 * time.Millisecond) // the calls of both observers overlap
			return observerModel(req)
		}))
		st := be.NewStore(t)
		cfg := st.Config(observeAcrossConfig(newObserverModel(t, srv), false))
		first := enginetest.MustOpen(t, cfg)
		appendTurns(t, first, "t", 24)
		second := first
		if be.Name == enginetest.Postgres.Name {
			second = enginetest.MustOpen(t, cfg)
		}
		var wg sync.WaitGroup
		for _, e := range []*engine.Engine{first, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := e.Observe(ctx, "t", observe.Options{NoReflect: true}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		n := liveObservationCount(t, first)
		if n < 2 {
			t.Fatalf("%d observations, want several chunks", n)
		}
		if got := srv.Count(openaitest.PathChat); got != n {
			t.Fatalf("%d model calls for %d observations, want one a chunk", got, n)
		}
	})
}

// TestObserveBackgroundSkipsBusyThread: a background observer (another
// process on the same Postgres schema) that finds a thread being observed
// skips it, calling no model; the observing process observes it.
func TestObserveBackgroundSkipsBusyThread(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		<-release
		return observerModel(req)
	}))
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the server closes, which waits for its handlers
	st := enginetest.Postgres.NewStore(t)
	first := enginetest.MustOpen(t, st.Config(observeAcrossConfig(newObserverModel(t, srv), false)))
	appendTurns(t, first, "t", 24)
	done := make(chan error, 1)
	go func() {
		_, err := first.Observe(ctx, "t", observe.Options{NoReflect: true})
		done <- err
	}()
	waitFor(t, "the first observer's model call", func() bool { return srv.Count(openaitest.PathChat) > 0 })

	var logged enginetest.SyncBuffer
	cfg := st.Config(observeAcrossConfig(newObserverModel(t, srv), true))
	cfg.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	enginetest.MustOpen(t, cfg) // its background observer finds t due (observe_backlog.go)
	waitFor(t, "the background observer to skip t", func() bool {
		return strings.Contains(logged.String(), "another process is observing the thread")
	})
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, got := liveObservationCount(t, first), srv.Count(openaitest.PathChat); got != n {
		t.Fatalf("%d model calls for %d observations, want one a chunk", got, n)
	}
}
