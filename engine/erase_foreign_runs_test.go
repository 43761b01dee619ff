package engine_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestDeleteThreadKeepsOtherResourcesRuns: a resource's LoadContext on a
// thread id before the thread exists records a run of that resource;
// another resource may then create the thread (thread ids are global
// names, and this one was free). Erasing that thread deleted the first
// resource's run records with the thread's own, so one tenant's erasure
// (or expiry, or quota eviction) destroyed another tenant's provenance;
// then (walk56 F1) it kept the run with its thread id a tombstone and its
// query, which no expiry and no erasure by thread reached any more. The
// other resource's run is kept as it was, thread id and query: a run with
// no stored thread of its resource, which its own resource's erasure of
// the id erases. The owner's run id that spells the erased thread's id is
// entombed; another resource's that does is its own
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
		if rec.ResourceID != alice || rec.Query != "where did I leave the walrus figurine" || rec.ThreadID != shared {
			t.Errorf("alice's run: resource %q, query %q, thread %q; want %q, her query, thread %q (as it was)",
				rec.ResourceID, rec.Query, rec.ThreadID, alice, shared)
		}
		for _, f := range []journal.RunFilter{{ResourceID: alice}, {ThreadID: shared}} {
			runs, err := e.Journal().ListRuns(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || runs[0].RunID != aliceRun || runs[0].ThreadID != shared {
				t.Errorf("runs listed by %+v: %+v, want %s alone, on %s", f, runs, aliceRun, shared)
			}
		}
		for _, run := range []string{"bob-run-1", spelled} {
			if _, err := e.Journal().MemCtx(ctx, run); !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("run %s after the erasure: %v, want ErrNotFound", run, err)
			}
		}
		if hits := storedCopies(t, be, e, "bob's first turn in his new thread"); len(hits) > 0 {
			t.Errorf("the deleted thread's turn is still in %v", hits)
		}
		// alice's erasure of the id takes her run; the id is then free.
		res, err = e.DeleteThreadOf(ctx, shared, alice)
		if err != nil {
			t.Fatalf("alice's DeleteThreadOf after bob's thread was erased: %v, want her run erased", err)
		}
		if res.Runs != 1 {
			t.Errorf("alice's DeleteThreadOf: Runs = %d, want 1", res.Runs)
		}
		if _, err := e.Journal().MemCtx(ctx, aliceRun); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("alice's run after her erasure: %v, want ErrNotFound", err)
		}
		if hits := storedCopies(t, be, e, "where did I leave the walrus figurine"); len(hits) > 0 {
			t.Errorf("alice's query is still in %v", hits)
		}
	})
}

// TestRunOnTakenThreadIsItsResources: while another resource's thread
// holds the id, a run recorded on it before is its own resource's: that
// resource's erasure of the id erases it (ErrThreadNotFound before, the
// run left), leaving the thread, its turns and the thread's own runs; and
// expiry reaches it by the rule of runs with no stored thread of their
// resource (idle from its newest run), however active the thread is
// (before, no expiry reached it while the thread lived).
func TestRunOnTakenThreadIsItsResources(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		var mu sync.Mutex
		now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		e := be.MustOpen(t, engine.Config{Now: clock})
		const alice, bob = "res-alice-5601", "res-bob-5601"
		take := func(thread, run string) {
			t.Helper()
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: alice,
				Query: "my HIV test result is positive"}); err != nil {
				t.Fatal(err)
			}
			appendUser(t, e, thread, bob, "bob takes "+thread)
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run + "-bob", ThreadID: thread, ResourceID: bob}); err != nil {
				t.Fatal(err)
			}
		}
		take("chat-42", "run-a1")
		if got, err := e.ThreadlessOwners(ctx, "chat-42"); err != nil || !slices.Equal(got, []string{alice}) {
			t.Errorf("ThreadlessOwners(chat-42) = %v, %v; want [%s]", got, err, alice)
		}
		res, err := e.DeleteThreadOf(ctx, "chat-42", alice)
		if err != nil {
			t.Fatalf("alice's DeleteThreadOf of the id bob's thread holds: %v, want her run erased", err)
		}
		if res.Runs != 1 || len(res.Messages) != 0 || len(res.Invalidated) != 0 {
			t.Errorf("alice's DeleteThreadOf: %+v, want 1 run, no message, nothing invalidated", res)
		}
		if _, err := e.Journal().MemCtx(ctx, "run-a1"); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("alice's run after her erasure: %v, want ErrNotFound", err)
		}
		if _, err := e.Journal().MemCtx(ctx, "run-a1-bob"); err != nil {
			t.Errorf("bob's run after alice's erasure: %v, want it kept", err)
		}
		if th, err := e.GetThread(ctx, "chat-42"); err != nil || th.MessageCount != 1 || th.ResourceID != bob {
			t.Errorf("bob's thread after alice's erasure: %+v, %v; want it as it was", th, err)
		}
		if _, err := e.DeleteThreadOf(ctx, "chat-42", alice); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("alice's second DeleteThreadOf: %v, want ErrThreadNotFound", err)
		}

		take("chat-44", "run-a3")
		mu.Lock()
		now = now.Add(2 * time.Hour)
		mu.Unlock()
		appendUser(t, e, "chat-44", bob, "bob is still here")
		appendUser(t, e, "chat-42", bob, "and here")
		exp, err := e.Expire(ctx, engine.ExpireRequest{Idle: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if len(exp.Threads) != 1 || exp.Threads[0].ThreadID != "chat-44" || exp.Threads[0].ResourceID != alice || exp.Threads[0].Messages != 0 {
			t.Errorf("expired %+v, want chat-44 of %s alone, 0 messages", exp.Threads, alice)
		}
		if _, err := e.Journal().MemCtx(ctx, "run-a3"); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("alice's run after the expiry: %v, want ErrNotFound", err)
		}
		if th, err := e.GetThread(ctx, "chat-44"); err != nil || th.MessageCount != 2 {
			t.Errorf("bob's thread after the expiry: %+v, %v; want its 2 messages", th, err)
		}
		if hits := storedCopies(t, be, e, "my HIV test result is positive"); len(hits) > 0 {
			t.Errorf("alice's query is still in %v", hits)
		}
	})
}
