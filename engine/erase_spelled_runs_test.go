package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestErasureKeepsOtherResourcesSpelledRuns: a run of another resource
// whose id spells the erased thread's id (bob's "s9-bob" on the thread id
// s9, recorded before alice created the thread) is bob's, as his other
// runs on the id are. An erasure of alice's thread (by the operator, by
// alice's tenant, or of alice's resource) deleted its record with alice's
// own runs, because the rule that entombs a run id spelling an erased id
// looked at every run on the thread.
func TestErasureKeepsOtherResourcesSpelledRuns(t *testing.T) {
	const thread, alice, bob = "s9-thread-6620", "res-alice-6620", "res-bob-6620"
	erasures := map[string]func(e *engine.Engine) (*engine.EraseResult, error){
		"DeleteThread": func(e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteThread(context.Background(), thread)
		},
		"DeleteThreadOf": func(e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteThreadOf(context.Background(), thread, alice)
		},
		"DeleteResource": func(e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteResource(context.Background(), alice)
		},
	}
	for name, erase := range erasures {
		t.Run(name, func(t *testing.T) {
			enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
				ctx := context.Background()
				e := be.MustOpen(t, engine.Config{})
				bobRuns := []string{thread + "-bob", "bobrun9"}
				for _, run := range bobRuns {
					if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: bob,
						Query: "the otter timetable"}); err != nil {
						t.Fatal(err)
					}
				}
				appendUser(t, e, thread, alice, "alice's first turn")
				const aliceRun = thread + "-alice"
				if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: aliceRun, ThreadID: thread, ResourceID: alice}); err != nil {
					t.Fatal(err)
				}

				res, err := erase(e)
				if err != nil {
					t.Fatal(err)
				}
				if be.Name != enginetest.Postgres.Name && res.Vacuumed != "" {
					t.Errorf("EraseResult.Vacuumed = %q, want none (bob's run id keeps the thread id; no VACUUM takes it out)", res.Vacuumed)
				}
				if res.Runs != 1 {
					t.Errorf("EraseResult.Runs = %d, want 1 (alice's)", res.Runs)
				}
				for _, run := range bobRuns {
					rec, err := e.Journal().MemCtx(ctx, run)
					if err != nil {
						t.Errorf("bob's run %s after the erasure of alice's thread: %v, want it kept", run, err)
						continue
					}
					if rec.ResourceID != bob || rec.Query != "the otter timetable" {
						t.Errorf("bob's run %s: resource %q, query %q; want %q and his query", run, rec.ResourceID, rec.Query, bob)
					}
				}
				runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ResourceID: bob})
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != len(bobRuns) {
					t.Errorf("bob's runs listed: %+v, want %v", runs, bobRuns)
				}
				if _, err := e.Journal().MemCtx(ctx, aliceRun); !errors.Is(err, journal.ErrNotFound) {
					t.Errorf("alice's run %s after the erasure: %v, want ErrNotFound", aliceRun, err)
				}
				if hits := storedCopies(t, be, e, aliceRun); len(hits) > 0 {
					t.Errorf("alice's run id, which spells the deleted thread's id, is still in %v", hits)
				}
			})
		})
	}
}

// TestDeleteResourceDeletesRunsOnOthersThreads: a resource's runs recorded
// on a thread id another resource holds (bob's LoadContext on t7 before
// alice created it) are the resource's: DeleteResource(bob) left them
// listed, with the thread and resource entombed and the query "[erased]",
// and a run id that spells bob's id ("res-bob-7731:turn-1") kept the id in
// the file, though an erased resource leaves no run listing and its id in
// no file. Alice's thread and runs are kept.
func TestDeleteResourceDeletesRunsOnOthersThreads(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const thread, alice, bob = "t7-thread-7731", "res-alice-7731", "res-bob-7731"
		bobRuns := []string{bob + ":turn-1", "plain-run-7731"}
		for _, run := range bobRuns {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: bob,
				Query: "the heron schedule"}); err != nil {
				t.Fatal(err)
			}
		}
		appendUser(t, e, thread, alice, "alice's first turn")
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "alice-run-7731", ThreadID: thread, ResourceID: alice}); err != nil {
			t.Fatal(err)
		}

		res, err := e.DeleteResource(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		if res.Runs != len(bobRuns) {
			t.Errorf("EraseResult.Runs = %d, want %d (bob's)", res.Runs, len(bobRuns))
		}
		for _, run := range bobRuns {
			if rec, err := e.Journal().MemCtx(ctx, run); !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("bob's run %s after DeleteResource: %+v, %v; want ErrNotFound", run, rec, err)
			}
		}
		runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].RunID != "alice-run-7731" {
			t.Errorf("runs listed after DeleteResource(bob): %+v, want alice-run-7731 alone", runs)
		}
		if hits := storedCopies(t, be, e, bob); len(hits) > 0 {
			t.Errorf("the erased resource's id is still in %v", hits)
		}
		if _, err := e.Journal().MemCtx(ctx, "alice-run-7731"); err != nil {
			t.Errorf("alice's run after DeleteResource(bob): %v, want it kept", err)
		}
	})
}
