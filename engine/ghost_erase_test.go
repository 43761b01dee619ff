package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestErasureReachesThreadlessRuns: a LoadContext on a thread id with no
// stored thread (a new conversation's first turn, or a context loaded
// just after the thread was erased) records a run whose memctx holds the
// query in full. DeleteThread of that id answered ErrThreadNotFound,
// Expire never reached it and DeleteResource left it listed under
// tombstones, so the query stayed stored for good. Each erasure now
// deletes the run (its record, its listing, the query in every file);
// another resource's run on another thread id stays; DeleteThread of an
// id with neither a thread nor a run is still ErrThreadNotFound.
func TestErasureReachesThreadlessRuns(t *testing.T) {
	const ghost, alice, bob = "ghost", "res-alice", "res-bob"
	const secret = "ZX9912345"
	erasures := []struct {
		name  string
		erase func(ctx context.Context, e *engine.Engine) error
	}{
		{"DeleteThread", func(ctx context.Context, e *engine.Engine) error {
			res, err := e.DeleteThread(ctx, ghost)
			if err == nil && res.Runs != 2 {
				t.Errorf("EraseResult.Runs = %d, want 2", res.Runs)
			}
			return err
		}},
		{"DeleteThreadOf", func(ctx context.Context, e *engine.Engine) error {
			if _, err := e.DeleteThreadOf(ctx, ghost, bob); !errors.Is(err, engine.ErrThreadNotFound) {
				t.Errorf("DeleteThreadOf another resource: %v, want ErrThreadNotFound", err)
			}
			_, err := e.DeleteThreadOf(ctx, ghost, alice)
			return err
		}},
		{"DeleteResource", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.DeleteResource(ctx, alice)
			return err
		}},
		{"Expire/idle", func(ctx context.Context, e *engine.Engine) error {
			res, err := e.Expire(ctx, engine.ExpireRequest{Idle: time.Hour})
			if err == nil && (len(res.Threads) != 1 || res.Threads[0].ThreadID != ghost || res.Threads[0].ResourceID != alice) {
				t.Errorf("expired %+v, want %s of %s alone", res.Threads, ghost, alice)
			}
			return err
		}},
		{"Expire/lifetime", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Expire(ctx, engine.ExpireRequest{})
			return err
		}},
	}
	for _, c := range erasures {
		t.Run(c.name, func(t *testing.T) {
			enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
				ctx := context.Background()
				var clock atomic.Int64
				now := func() time.Time { return time.Unix(1_700_000_000+clock.Load(), 0) }
				e := be.MustOpen(t, engine.Config{Now: now, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
				for _, run := range []string{"ghost-run", "ghost-run-2"} {
					if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: ghost, ResourceID: alice,
						Query: "my passport number is " + secret}); err != nil {
						t.Fatal(err)
					}
				}
				clock.Store(2 * 3600) // bob's run is recent: no expiry reaches it
				if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "bob-run", ThreadID: "bob-new", ResourceID: bob, Query: "hello"}); err != nil {
					t.Fatal(err)
				}
				if err := c.erase(ctx, e); err != nil {
					t.Fatal(err)
				}
				for _, run := range []string{"ghost-run", "ghost-run-2"} {
					if raw, err := e.Journal().RawMemCtx(ctx, run); !errors.Is(err, journal.ErrNotFound) {
						t.Errorf("run %s after the erasure: %v %s, want ErrNotFound", run, err, raw)
					}
				}
				for _, f := range []journal.RunFilter{{ThreadID: ghost}, {ResourceID: alice}} {
					if runs, err := e.Journal().ListRuns(ctx, f); err != nil || len(runs) != 0 {
						t.Errorf("runs listed (%+v): %+v, %v; want none", f, runs, err)
					}
				}
				if _, err := e.Journal().MemCtx(ctx, "bob-run"); err != nil {
					t.Errorf("bob's run after the erasure: %v, want it kept", err)
				}
				if hits := storedCopies(t, be, e, secret); len(hits) > 0 {
					t.Errorf("the query is still stored in %v", hits)
				}
				if _, err := e.DeleteThread(ctx, ghost); !errors.Is(err, engine.ErrThreadNotFound) {
					t.Errorf("DeleteThread again: %v, want ErrThreadNotFound", err)
				}
			})
		})
	}
}
