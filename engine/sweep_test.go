package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// erasingMarkers counts the stored erasure markers (purges owed).
func erasingMarkers(t *testing.T, e *engine.Engine) int {
	t.Helper()
	var n int
	if err := engine.ConnOf(e).QueryRowContext(context.Background(), `SELECT COUNT(*) FROM journal WHERE scope = ?`, engine.ScopeErasing).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sweepThreads appends one message to each of n threads of resource and
// returns their ids; ids and texts are long enough for the residue check.
func sweepThreads(t *testing.T, e *engine.Engine, resource string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("sweep-thread-%02d", i)
		say(t, e, resource, id, fmt.Sprintf("the locker code of sweep thread %02d is 58-21-77", i))
		ids = append(ids, id)
	}
	return ids
}

// assertErasedFromFiles checks, on SQLite, that no file of the data
// directory holds the threads' ids or texts.
func assertErasedFromFiles(t *testing.T, be enginetest.Backend, e *engine.Engine, ids []string) {
	t.Helper()
	if be.Name != enginetest.SQLite.Name {
		return
	}
	for i, id := range ids {
		for _, tok := range []string{id, fmt.Sprintf("sweep thread %02d is 58-21-77", i)} {
			if f := filesContaining(t, e.Dir(), tok); len(f) > 0 {
				t.Fatalf("%q is still in %v", tok, f)
			}
		}
	}
}

// TestExpireSweepPurgesOnce: Expire runs each expired thread's erasure
// transaction, then the physical purge (index removal, segment merge,
// index rebuild, checkpoint, residue check) once for all of them. It ran
// once per thread before: 6 purges for 6 threads. The guarantee holds as
// for DeleteThread: once Expire returns, no file holds their text or ids,
// and no marker is left.
func TestExpireSweepPurgesOnce(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events,
			Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		ids := sweepThreads(t, e, "alice", 6)
		clock.Add(30 * time.Minute)
		say(t, e, "alice", "recent-thread", "still talking about the locker")
		clock.Add(45 * time.Minute)
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		drainEvents(events)
		before := engine.Purges(e)
		r, err := e.Expire(ctx, engine.ExpireRequest{})
		if err != nil || !slices.Equal(expiredIDs(r), ids) {
			t.Fatalf("expired %v (%v), want %v", expiredIDs(r), err, ids)
		}
		if got := engine.Purges(e) - before; got != 1 {
			t.Fatalf("%d physical purges for a sweep of %d threads, want 1", got, len(ids))
		}
		var expired []string
		for _, ev := range drainEvents(events) {
			if ev.Reason == engine.EventExpired {
				expired = append(expired, ev.ThreadID)
			}
		}
		if !slices.Equal(expired, ids) {
			t.Fatalf("expired events for %v, want %v", expired, ids)
		}
		if n := erasingMarkers(t, e); n != 0 {
			t.Fatalf("%d erasure markers left after the sweep", n)
		}
		assertErasedFromFiles(t, be, e, ids)
		if got := threadIDs(t, e, ""); !slices.Equal(got, []string{"recent-thread"}) {
			t.Fatalf("threads left %v", got)
		}
		// Nothing due: no purge at all.
		before = engine.Purges(e)
		if r, err := e.Expire(ctx, engine.ExpireRequest{}); err != nil || len(r.Threads) != 0 || engine.Purges(e) != before {
			t.Fatalf("idle Expire: %v (%v), %d purges", expiredIDs(r), err, engine.Purges(e)-before)
		}
	})
}

// TestQuotaEvictionSweepPurgesOnce: an Append that evicts several threads
// purges once for all of them, before it returns.
func TestQuotaEvictionSweepPurgesOnce(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		clock := newFakeClock()
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: 5}}})
		ids := sweepThreads(t, e, "bob", 5)
		clock.Add(time.Minute)
		before := engine.Purges(e)
		res, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "big-thread", ResourceID: "bob",
			Messages: []engine.Message{user("", "one"), user("", "two"), user("", "three"), user("", "four"), user("", "five")}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Evicted, ids) {
			t.Fatalf("evicted %v, want %v", res.Evicted, ids)
		}
		if got := engine.Purges(e) - before; got != 1 {
			t.Fatalf("%d physical purges for %d evictions, want 1", got, len(ids))
		}
		if n := erasingMarkers(t, e); n != 0 {
			t.Fatalf("%d erasure markers left after the Append", n)
		}
		assertErasedFromFiles(t, be, e, ids)
	})
}

// cancellingClock is a clock that cancels a context at its n-th call
// after arm: a deterministic way to cancel an Expire between two of its
// erasure transactions (each reads the clock).
type cancellingClock struct {
	*fakeClock
	mu     sync.Mutex
	calls  int
	at     int
	cancel context.CancelFunc
}

func (c *cancellingClock) Now() time.Time {
	c.mu.Lock()
	if c.cancel != nil {
		if c.calls++; c.calls == c.at {
			c.cancel()
		}
	}
	c.mu.Unlock()
	return c.fakeClock.Now()
}

func (c *cancellingClock) arm(at int, cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.at, c.cancel = 0, at, cancel
}

// TestExpireCancelledOwesPurge: a sweep cancelled between two threads
// keeps the erasures it committed (their events are published, saying the
// purge is incomplete) and leaves their markers; the next erasure of the
// engine finishes their purge too (no marker left, no file holds them).
func TestExpireCancelledOwesPurge(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		clock := &cancellingClock{fakeClock: newFakeClock()}
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		ids := sweepThreads(t, e, "carol", 4)
		clock.Add(2 * time.Hour)
		say(t, e, "carol", "other-thread", "a later conversation")
		drainEvents(events)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Calls: Expire's now, then one per erasure transaction: the
		// fourth is the third thread's, which the cancellation rolls back.
		clock.arm(4, cancel)
		r, err := e.Expire(ctx, engine.ExpireRequest{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Expire: %v, want context.Canceled", err)
		}
		done := expiredIDs(r)
		if len(done) == 0 || len(done) == len(ids) {
			t.Fatalf("expired %v before the cancellation, want some of %v", done, ids)
		}
		if n := erasingMarkers(t, e); n != len(done) {
			t.Fatalf("%d erasure markers after a cancelled sweep of %d threads, want %d", n, len(done), len(done))
		}
		var incomplete int
		for _, ev := range drainEvents(events) {
			if ev.Reason == engine.EventExpired {
				incomplete++
			}
		}
		if incomplete != len(done) {
			t.Fatalf("%d expired events, want %d", incomplete, len(done))
		}
		if _, err := e.DeleteThread(context.Background(), "other-thread"); err != nil {
			t.Fatal(err)
		}
		if n := erasingMarkers(t, e); n != 0 {
			t.Fatalf("%d erasure markers after the next erasure, want 0", n)
		}
		assertErasedFromFiles(t, be, e, done)
		if be.Name == enginetest.SQLite.Name {
			if f := filesContaining(t, e.Dir(), "other-thread"); len(f) > 0 {
				t.Fatalf("the deleted thread's id is still in %v", f)
			}
		}
	})
}
