package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// within waits for done, failing the test after d.
func within[T any](t *testing.T, d time.Duration, what string, done <-chan T) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not finish within %s", what, d)
		panic("unreachable")
	}
}

func appendTo(t *testing.T, e *engine.Engine, thread, resource string, ms ...engine.Message) {
	t.Helper()
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: resource, Messages: ms}); err != nil {
		t.Fatal(err)
	}
}

// TestEraseDoesNotStallOtherResources: an observer run waiting for the
// model on one resource's thread holds off neither an erasure of another
// resource's thread nor a LoadContext of a third; it is not cancelled and
// completes afterwards. (The fence used to be engine-wide: the erasure
// waited for the model call, and every LoadContext behind it.)
func TestEraseDoesNotStallOtherResources(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		entered, release := make(chan struct{}, 1), make(chan struct{})
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release
			return observerModel(req)
		}))
		released := false
		t.Cleanup(func() {
			if !released {
				close(release)
			}
		})
		e := be.MustOpen(t, engine.Config{RecentN: 1, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10}})
		appendTo(t, e, "busy", "r-busy", user("b1", "a turn about gardens"), user("b2", "a turn about roses"), user("b3", "a third"))
		appendTo(t, e, "gone", "r-gone", user("g1", "a turn to erase"))
		appendTo(t, e, "other", "r-other", user("x1", "a turn about boats"))

		obsDone := make(chan error, 1)
		go func() {
			_, err := e.Observe(ctx, "busy", observe.Options{Force: true, NoReflect: true})
			obsDone <- err
		}()
		within(t, 10*time.Second, "the observer's model call", entered)

		eraseDone := make(chan error, 1)
		go func() {
			_, err := e.DeleteThread(ctx, "gone")
			eraseDone <- err
		}()
		if err := within(t, 10*time.Second, "DeleteThread of another resource", eraseDone); err != nil {
			t.Fatal(err)
		}
		loadDone := make(chan error, 1)
		go func() {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "other"})
			loadDone <- err
		}()
		if err := within(t, 10*time.Second, "LoadContext of another resource", loadDone); err != nil {
			t.Fatal(err)
		}
		released = true
		close(release)
		if err := within(t, 10*time.Second, "the observer", obsDone); err != nil {
			t.Fatalf("the observer of another resource was disturbed: %v", err)
		}
		obs, err := e.Observations(ctx, observe.Filter{ThreadID: "busy"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(obs); got == 0 {
			t.Fatal("the observer stored nothing")
		}
	})
}

// TestEraseCancelsObsoleteObserver: an erasure of a turn of a thread whose
// observer waits for a slow model (the fake answers after a minute)
// cancels that call instead of waiting for it; meanwhile a LoadContext on
// another resource completes. The cancelled run records nothing and says
// why (ErrObserveCancelled), and does not log that the observer call
// failed and will be retried (it logged WARN "observer call failed; will
// retry later … context canceled": it will not).
func TestEraseCancelsObsoleteObserver(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t)
		srv.Enqueue(openaitest.Text(`{"observations":[]}`).WithDelay(time.Minute))
		logs := &enginetest.SyncBuffer{}
		e := be.MustOpen(t, engine.Config{RecentN: 1, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10},
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		appendTo(t, e, "t", "r", user("s1", "a turn about gardens"), user("s2", "my secret is "+secretToken), user("s3", "a third"))
		appendTo(t, e, "other", "r-other", user("x1", "a turn about boats"))

		obsDone := make(chan error, 1)
		go func() {
			_, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
			obsDone <- err
		}()
		deadline := time.Now().Add(10 * time.Second)
		for srv.Pending() > 0 { // the scripted reply is taken when the request arrives
			if time.Now().After(deadline) {
				t.Fatal("the observer never called the model")
			}
			time.Sleep(5 * time.Millisecond)
		}
		eraseDone := make(chan error, 1)
		go func() {
			_, err := e.DeleteMessages(ctx, "s2")
			eraseDone <- err
		}()
		loadDone := make(chan error, 1)
		go func() {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "other"})
			loadDone <- err
		}()
		if err := within(t, 10*time.Second, "LoadContext of another resource", loadDone); err != nil {
			t.Fatal(err)
		}
		if err := within(t, 10*time.Second, "DeleteMessages", eraseDone); err != nil {
			t.Fatal(err)
		}
		err := within(t, 10*time.Second, "the cancelled observer", obsDone)
		if !errors.Is(err, engine.ErrObserveCancelled) {
			t.Fatalf("Observe = %v, want ErrObserveCancelled", err)
		}
		obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t", All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(obs) != 0 {
			t.Fatalf("a cancelled observer stored %d observations", len(obs))
		}
		if got := logs.String(); strings.Contains(got, "will retry") {
			t.Errorf("the cancelled observer logged a retry:\n%s", got)
		}
	})
}

// TestEraseWaitIsBounded: an erasure whose resource has a LoadContext stuck
// (here in the query embedding) gives up after Config.EraseWait with
// ErrEraseBusy and erases nothing; once the LoadContext is done, the same
// erasure succeeds.
func TestEraseWaitIsBounded(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &armedGate{entered: make(chan struct{}, 1), release: make(chan struct{})}
		e := be.MustOpen(t, engine.Config{Embedder: emb, EraseWait: 200 * time.Millisecond})
		appendTo(t, e, "t", "r", user("w1", "an older turn about gardens"), user("w2", "a turn to erase"))
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		emb.armed.Store(true)
		loadDone := make(chan error, 1)
		go func() {
			_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 1, Recall: &recall.Options{TopK: 2}})
			loadDone <- err
		}()
		within(t, 10*time.Second, "the query embedding", emb.entered)
		eraseDone := make(chan error, 1)
		go func() {
			_, err := e.DeleteMessages(ctx, "w2")
			eraseDone <- err
		}()
		err := within(t, 10*time.Second, "DeleteMessages", eraseDone)
		emb.armed.Store(false)
		close(emb.release)
		if !errors.Is(err, engine.ErrEraseBusy) {
			t.Fatalf("DeleteMessages = %v, want ErrEraseBusy", err)
		}
		if ms, err := e.MessagesByID(ctx, "r", "w2"); err != nil || len(ms) != 1 {
			t.Fatalf("a refused erasure erased: %d messages, %v", len(ms), err)
		}
		if err := within(t, 10*time.Second, "LoadContext", loadDone); err != nil {
			t.Fatal(err)
		}
		if _, err := e.DeleteMessages(ctx, "w2"); err != nil {
			t.Fatal(err)
		}
	})
}
