package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestDeleteThreadKeepsOtherResourcesRuns: a resource's LoadContext on a
// thread id before the thread exists records a run of that resource;
// another resource may then create the thread (thread ids are global
// names, and this one was free). Erasing that thread deleted the first
// resource's run records with the thread's own, so one tenant's erasure
// (or expiry, or quota eviction) destroyed another tenant's provenance.
// The other resource's run is kept, its thread id entombed (the erased id
// is kept nowhere). The owner's run id that spells the erased thread's id
// is entombed; another resource's that does is its own
// (TestErasureKeepsOtherResourcesSpelledRuns).
func TestDeleteThreadKeepsOtherResourcesRuns(t *testing.T) {
	erasures := map[string]func(e *engine.Engine) (*engine.EraseResult, error){
		"DeleteThread": func(e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteThread(context.Background(), "shared-thread-4412")
		},
		"DeleteResource": func(e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteResource(context.Background(), "res-bob")
		},
	}
	for name, erase := range erasures {
		t.Run(name, func(t *testing.T) { testKeepsOtherResourcesRuns(t, erase) })
	}
}

func testKeepsOtherResourcesRuns(t *testing.T, erase func(e *engine.Engine) (*engine.EraseResult, error)) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const shared, alice, bob = "shared-thread-4412", "res-alice", "res-bob"
		const aliceRun, spelled = "alice-run-7731", "shared-thread-4412-bob"
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: aliceRun, ThreadID: shared, ResourceID: alice,
			Query: "where did I leave the walrus figurine"}); err != nil {
			t.Fatal(err)
		}
		appendUser(t, e, shared, bob, "bob's first turn in his new thread")
		for _, run := range []string{"bob-run-1", spelled} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: shared, ResourceID: bob}); err != nil {
				t.Fatal(err)
			}
		}

		res, err := erase(e)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Runs, 2; got != want {
			t.Errorf("EraseResult.Runs = %d, want %d (bob's runs only)", got, want)
		}
		rec, err := e.Journal().MemCtx(ctx, aliceRun)
		if err != nil {
			t.Fatalf("alice's run after the erasure of bob's thread: %v, want it kept", err)
		}
		if rec.ResourceID != alice || rec.Query != "where did I leave the walrus figurine" || rec.ThreadID == shared {
			t.Errorf("alice's run: resource %q, query %q, thread %q; want %q, her query, the thread id entombed",
				rec.ResourceID, rec.Query, rec.ThreadID, alice)
		}
		runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ResourceID: alice})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].RunID != aliceRun {
			t.Errorf("alice's runs listed: %+v, want %s alone", runs, aliceRun)
		}
		for _, run := range []string{"bob-run-1", spelled} {
			if _, err := e.Journal().MemCtx(ctx, run); !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("run %s after the erasure: %v, want ErrNotFound", run, err)
			}
		}
		if hits := storedCopies(t, be, e, shared); len(hits) > 0 {
			t.Errorf("the deleted thread's id is still in %v", hits)
		}
	})
}
