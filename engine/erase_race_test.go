package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// raceRounds is how many interleavings a race test tries: a few in the
// normal suite, more under -race (go test -race -run Races ./engine/).
func raceRounds() int {
	if raceEnabled {
		return 60
	}
	return 12
}

// jitter sleeps a random few hundred microseconds, so that the two sides of
// a race start in varying order.
func jitter() { time.Sleep(time.Duration(rand.IntN(400)) * time.Microsecond) }

// TestEraseRacesWorkingMemoryTool runs updateWorkingMemory calls of a
// thread's run at the same time as DeleteThread (thread scope) or
// DeleteResource (resource scope): whichever goes first, no working memory
// of the erased thread or resource is left afterwards. (Without the fence,
// a call that resolved the thread before the erasure wrote its state after
// it, recreating the erased working memory.)
func TestEraseRacesWorkingMemoryTool(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		for _, scope := range []working.Scope{working.ScopeThread, working.ScopeResource} {
			t.Run(string(scope), func(t *testing.T) {
				ctx := context.Background()
				e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Mode: working.ModeTemplate, Scope: scope, Template: "# Notes\n"}})
				mem, err := e.WorkingMemory()
				if err != nil {
					t.Fatal(err)
				}
				for i := range raceRounds() {
					thread, resource := fmt.Sprintf("t%d", i), fmt.Sprintf("r%d", i)
					appendTo(t, e, thread, resource, user("", "remember that I live in Lisbon"))
					var wg sync.WaitGroup
					var callErr, eraseErr error
					wg.Add(2)
					go func() {
						defer wg.Done()
						jitter()
						call := openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"memory":"# Notes\n- lives in Lisbon\n"}`)
						_, callErr = e.HandleToolCall(ctx, "run-"+thread, thread, "", call)
					}()
					go func() {
						defer wg.Done()
						jitter()
						if scope == working.ScopeThread {
							_, eraseErr = e.DeleteThread(ctx, thread)
						} else {
							_, eraseErr = e.DeleteResource(ctx, resource)
						}
					}()
					wg.Wait()
					if eraseErr != nil {
						t.Fatalf("round %d: erase: %v", i, eraseErr)
					}
					if callErr != nil && !errors.Is(callErr, engine.ErrThreadNotFound) {
						t.Fatalf("round %d: HandleToolCall = %v, want nil or ErrThreadNotFound", i, callErr)
					}
					key := working.ThreadKey(thread)
					if scope == working.ScopeResource {
						key = working.ResourceKey(resource)
					}
					st, err := mem.Get(ctx, key)
					if err != nil {
						t.Fatal(err)
					}
					hist, err := mem.History(ctx, key, 0)
					if err != nil {
						t.Fatal(err)
					}
					if st.Version != 0 || len(hist) != 0 {
						t.Fatalf("round %d: the erased %s working memory came back: version %d, %d history versions (call error %v)", i, scope, st.Version, len(hist), callErr)
					}
				}
			})
		}
	})
}

// TestCloseRacesBackgroundObserver appends (which queues the thread for
// the background observer Open started) while Close runs: Close must wait
// for the observer goroutine, never let it outlive Close (run under -race:
// the wait group's Add must not race its Wait).
func TestCloseRacesBackgroundObserver(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		srv := openaitest.New(t)
		rounds := raceRounds()
		if be.Name == enginetest.Postgres.Name {
			rounds = max(3, rounds/4) // each round opens a new engine on a new schema: 25 s for 60 under -race
		}
		for i := range rounds {
			e, err := engine.Open(context.Background(), be.Config(t, engine.Config{Embedder: recall.HashEmbedder{},
				Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Background: true, Threshold: 1 << 20}}))
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				jitter()
				// Append may lose the race to Close in any of its steps; only a
				// panic or a data race is a failure here.
				_, _ = e.Append(context.Background(), engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", fmt.Sprintf("turn %d", i))}})
			}()
			go func() {
				defer wg.Done()
				jitter()
				if err := e.Close(); err != nil {
					t.Errorf("round %d: Close: %v", i, err)
				}
			}()
			wg.Wait()
			if _, err := e.Observe(context.Background(), "t", observe.Options{}); !errors.Is(err, engine.ErrClosed) {
				t.Fatalf("round %d: Observe after Close = %v, want ErrClosed", i, err)
			}
		}
		// Open starts the observer (it resumes what an earlier process left
		// unobserved), so an append that passed its checks before Close
		// never starts it after Close returned: Close waits for it.
		e, err := engine.Open(context.Background(), be.Config(t, engine.Config{Embedder: recall.HashEmbedder{},
			Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Background: true}}))
		if err != nil {
			t.Fatal(err)
		}
		if !e.BackgroundObserverStarted() {
			t.Fatal("Open did not start the background observer")
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConcurrentErasuresComplete runs erasures of different threads at the
// same time: each completes (no ErrEraseIncomplete). An erasure checks
// that its index removals were applied; it counted every delete row of the
// outbox, so another erasure committed meanwhile, whose rows that one
// applies itself, made it report "n index removals deferred after
// failures".
func TestConcurrentErasuresComplete(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for i := range raceRounds() {
			var threads []string
			for w := range 3 {
				th := fmt.Sprintf("t%d-%d", i, w)
				appendTo(t, e, th, "r", user("", "the lighthouse keeper rang at noon"), user("", "and again at dusk"))
				threads = append(threads, th)
			}
			errs := make([]error, len(threads))
			var wg sync.WaitGroup
			for w, th := range threads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					jitter()
					_, errs[w] = e.DeleteThread(ctx, th)
				}()
			}
			wg.Wait()
			for w, err := range errs {
				if err != nil {
					t.Fatalf("round %d: DeleteThread(%s): %v", i, threads[w], err)
				}
			}
		}
	})
}
