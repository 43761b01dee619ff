package engine_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// stripeMate returns a thread id other than id that the observer's
// per-thread locks (64 stripes, by FNV-1a) put on id's stripe.
func stripeMate(id string) string {
	stripe := func(s string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(s))
		return h.Sum32() % 64
	}
	for i := 0; ; i++ {
		if c := fmt.Sprintf("mate%d", i); stripe(c) == stripe(id) {
			return c
		}
	}
}

// TestObserveWaitHonoursContext: an observation waiting for another one
// of its thread (or of a thread on the same lock stripe) to finish, which
// with a slow model takes minutes (MaxRounds calls of up to CallTimeout
// each), waited on a mutex without its context: a LoadContext with
// SyncOnLoad behind the background observer ran past the server's
// request timeout, and an erasure could not cancel such a waiting
// observation of the thread it erases (it gave up with ErrEraseBusy after
// EraseWait, though the observation of an erased thread does not count).
// Now the wait ends with the context.
func TestObserveWaitHonoursContext(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		entered, release := make(chan struct{}, 1), make(chan struct{})
		var once sync.Once
		open := func() { once.Do(func() { close(release) }) }
		defer open()
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			select {
			case entered <- struct{}{}:
				<-release // the first call stalls, as a slow model does
			default:
			}
			return observerModel(req)
		}))
		e := be.MustOpen(t, engine.Config{RecentN: 2, EraseWait: 2 * time.Second,
			Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10, ChunkTokens: 4000}})
		mate := stripeMate("t")
		appendTurns(t, e, "t", 6)
		appendTurns(t, e, mate, 6)
		held := make(chan error, 1)
		go func() {
			_, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
			held <- err
		}()
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the observer never called the model")
		}
		for _, thread := range []string{"t", mate} {
			wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			done := make(chan error, 1)
			go func() {
				_, err := e.Observe(wctx, thread, observe.Options{Force: true, NoReflect: true})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Observe(%s) behind a stalled observation: %v, want the context's error", thread, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Observe(%s) still waits for the stalled observation 10 s after its context ended", thread)
			}
			cancel()
		}
		// The erasure of the stripe-mate cancels its observation waiting
		// behind "t"'s.
		waiting := make(chan error, 1)
		go func() {
			_, err := e.Observe(ctx, mate, observe.Options{Force: true, NoReflect: true})
			waiting <- err
		}()
		// Once it holds the thread's fence key the erasure cancels it,
		// whether it still reads the thread or already waits behind "t"'s;
		// an erasure before that finds nothing to cancel, and the
		// observation then finds no thread (ErrThreadNotFound), as a run
		// slower than the 100 ms sleep alone here did.
		for deadline := time.Now().Add(10 * time.Second); engine.ObserveHolders(e, mate) == 0; time.Sleep(time.Millisecond) {
			select {
			case err := <-waiting:
				t.Fatalf("the observation of %s returned before the erasure: %v", mate, err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the observation of %s holds no fence key 10 s after it started", mate)
			}
		}
		time.Sleep(100 * time.Millisecond) // let it reach the lock
		if _, err := e.DeleteThread(ctx, mate); err != nil {
			t.Fatalf("DeleteThread(%s) while its observation waits behind another thread's: %v", mate, err)
		}
		if err := <-waiting; !errors.Is(err, engine.ErrObserveCancelled) {
			t.Errorf("the erased thread's waiting observation: %v, want ErrObserveCancelled", err)
		}
		open()
		if err := <-held; err != nil {
			t.Fatalf("the stalled observation, released: %v", err)
		}
	})
}
