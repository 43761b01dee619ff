package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestDeletedThreadLeavesNoRuns: DeleteThread deletes the memctx records of
// the thread's runs (their ids stay claimed); the runs of the resource's
// other threads stay listed.
func TestDeletedThreadLeavesNoRuns(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		appendTo(t, e, "gone", "r", user("", "a turn to erase"))
		appendTo(t, e, "kept", "r", user("", "a turn to keep"))
		for _, run := range []struct{ id, thread string }{{"g1", "gone"}, {"g2", "gone"}, {"k1", "kept"}} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run.id, ThreadID: run.thread}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := e.DeleteThread(ctx, "gone")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Runs, 2; got != want {
			t.Errorf("EraseResult.Runs = %d, want %d", got, want)
		}
		runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].RunID != "k1" {
			t.Fatalf("runs after DeleteThread: %+v, want only k1", runs)
		}
		for _, id := range []string{"g1", "g2"} {
			if _, err := e.Journal().MemCtx(ctx, id); !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("memctx of erased run %s: %v, want ErrNotFound", id, err)
			}
		}
		// The run ids stay claimed: a new thread of the same id cannot take
		// over the erased thread's runs.
		appendTo(t, e, "gone", "r", user("", "a new conversation"))
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "g1", ThreadID: "kept", ReplaceRun: true}); !errors.Is(err, journal.ErrRunOwned) {
			t.Errorf("reusing an erased run id: %v, want ErrRunOwned", err)
		}
	})
}

// TestLoadContextUnknownThread states the rule for a thread that does not
// exist: with a resource it is the first turn of a new conversation (the
// run is recorded under the resource, the window is empty, and the turns
// appended next are in the following run's window); without one, or with
// RequireThread, it is ErrThreadNotFound and nothing is recorded.
func TestLoadContextUnknownThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		t.Run("ErrThreadNotFound", func(t *testing.T) {
			for _, req := range []engine.LoadRequest{
				{RunID: "no-resource", ThreadID: "new"},
				{RunID: "inspect", ThreadID: "new", ResourceID: "r", RequireThread: true},
			} {
				if _, err := e.LoadContext(ctx, req); !errors.Is(err, engine.ErrThreadNotFound) {
					t.Errorf("%+v: %v, want ErrThreadNotFound", req, err)
				}
			}
			if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{}); err != nil || len(runs) != 0 {
				t.Fatalf("a refused LoadContext recorded runs: %+v, %v", runs, err)
			}
		})
		t.Run("FirstTurn", func(t *testing.T) {
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "turn-1", ThreadID: "new", ResourceID: "r", Query: "hello"})
			if err != nil {
				t.Fatal(err)
			}
			if c.MemCtx.ResourceID != "r" || c.MemCtx.RecentCount != 0 {
				t.Fatalf("first turn's memctx: resource %q, recentCount %d", c.MemCtx.ResourceID, c.MemCtx.RecentCount)
			}
			appendTo(t, e, "new", "r", user("", "hello"))
			c, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "turn-2", ThreadID: "new"})
			if err != nil {
				t.Fatal(err)
			}
			if c.MemCtx.RecentCount != 1 {
				t.Fatalf("second turn's recentCount = %d, want 1", c.MemCtx.RecentCount)
			}
			runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ThreadID: "new"})
			if err != nil || len(runs) != 2 {
				t.Fatalf("runs of the new thread: %+v, %v; want turn-1 and turn-2", runs, err)
			}
		})
	})
}

// TestLoadContextRacesDeleteThread runs LoadContext and DeleteThread of one
// thread at the same time: whichever goes first, the erased thread is left
// with no run record, and LoadContext either succeeded before the erasure
// or says ErrThreadNotFound.
func TestLoadContextRacesDeleteThread(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for i := range raceRounds() {
			thread := fmt.Sprintf("t%d", i)
			appendTo(t, e, thread, "r", user("", "a turn about gardens"))
			var wg sync.WaitGroup
			var loadErr, eraseErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				jitter()
				_, loadErr = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-" + thread, ThreadID: thread})
			}()
			go func() {
				defer wg.Done()
				jitter()
				_, eraseErr = e.DeleteThread(ctx, thread)
			}()
			wg.Wait()
			if eraseErr != nil {
				t.Fatalf("round %d: DeleteThread: %v", i, eraseErr)
			}
			if loadErr != nil && !errors.Is(loadErr, engine.ErrThreadNotFound) {
				t.Fatalf("round %d: LoadContext = %v, want nil or ErrThreadNotFound", i, loadErr)
			}
			if raw, err := e.Journal().RawMemCtx(ctx, "run-"+thread); !errors.Is(err, journal.ErrNotFound) {
				t.Fatalf("round %d: the erased thread's run is still recorded (%v): %s", i, err, raw)
			}
		}
	})
}
