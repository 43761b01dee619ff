package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// fakeClock is a settable clock for Config.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// say appends one user message to thread of resource.
func say(t *testing.T, e *engine.Engine, resource, thread, text string) *engine.AppendResult {
	t.Helper()
	res, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: resource,
		Messages: []engine.Message{{Role: engine.RoleUser, Content: text}}})
	if err != nil {
		t.Fatalf("append to %s: %v", thread, err)
	}
	return res
}

func threadIDs(t *testing.T, e *engine.Engine, resource string) []string {
	t.Helper()
	ts, err := e.ListThreads(context.Background(), resource)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, th := range ts {
		ids = append(ids, th.ID)
	}
	slices.Sort(ids)
	return ids
}

func expiredIDs(r *engine.ExpireResult) []string {
	var ids []string
	for _, t := range r.Threads {
		ids = append(ids, t.ThreadID)
	}
	return ids
}

func TestExpireIdleThreads(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events,
			Lifecycle: engine.Lifecycle{IdleTTL: 24 * time.Hour}})

		say(t, e, "alice", "direct", "the door code is 4711")
		say(t, e, "alice", "public", "hello room")
		if err := e.SetIdleTTL(ctx, "public", "alice", 30*time.Minute); err != nil {
			t.Fatal(err)
		}
		say(t, e, "bob", "keep", "never forget me")
		if err := e.SetIdleTTL(ctx, "keep", "bob", -1); err != nil {
			t.Fatal(err)
		}

		clock.Add(29 * time.Minute)
		r, err := e.Expire(ctx, engine.ExpireRequest{})
		if err != nil || len(r.Threads) != 0 {
			t.Fatalf("at 29m: expired %v (%v), want none", expiredIDs(r), err)
		}
		clock.Add(time.Minute)
		dry, err := e.Expire(ctx, engine.ExpireRequest{DryRun: true})
		if err != nil || !slices.Equal(expiredIDs(dry), []string{"public"}) {
			t.Fatalf("dry run at 30m: %v (%v), want [public]", expiredIDs(dry), err)
		}
		if got := threadIDs(t, e, ""); len(got) != 3 {
			t.Fatalf("a dry run erased something: %v", got)
		}
		r, err = e.Expire(ctx, engine.ExpireRequest{})
		if err != nil || !slices.Equal(expiredIDs(r), []string{"public"}) {
			t.Fatalf("at 30m: expired %v (%v), want [public]", expiredIDs(r), err)
		}
		if r.Threads[0].Reason != engine.EventExpired || r.Threads[0].ResourceID != "alice" || r.Threads[0].Messages != 1 {
			t.Fatalf("expired thread = %+v", r.Threads[0])
		}

		clock.Add(24 * time.Hour)
		r, err = e.Expire(ctx, engine.ExpireRequest{})
		if err != nil || !slices.Equal(expiredIDs(r), []string{"direct"}) {
			t.Fatalf("after a day: expired %v (%v), want [direct] (keep never expires)", expiredIDs(r), err)
		}
		if got := threadIDs(t, e, ""); !slices.Equal(got, []string{"keep"}) {
			t.Fatalf("threads left %v, want [keep]", got)
		}
		// The expired thread is gone the way DeleteThread erases: nothing of it
		// can be found or recalled.
		if _, err := e.GetThread(ctx, "direct"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("GetThread(direct) = %v, want ErrThreadNotFound", err)
		}
		hits, err := e.Search(ctx, engine.SearchRequest{ResourceID: "alice", Query: "door code"})
		if err != nil || len(hits.Hits) > 0 {
			t.Fatalf("search after expiry: %+v (%v), want nothing", hits, err)
		}

		var got []string
		for _, ev := range drainEvents(events) {
			if ev.Reason == engine.EventExpired {
				got = append(got, ev.ThreadID+"@"+ev.ResourceID)
				if ev.Count != 1 || len(ev.IDs) != 1 {
					t.Fatalf("expired event %+v, want one message id", ev)
				}
			}
			if ev.Reason == engine.EventErased {
				t.Fatalf("expiry published %q too: %+v", ev.Reason, ev)
			}
		}
		if !slices.Equal(got, []string{"public@alice", "direct@alice"}) {
			t.Fatalf("expired events %v", got)
		}

		// The operator's override expires even a thread set to never expire.
		r, err = e.Expire(ctx, engine.ExpireRequest{Idle: time.Hour, ResourceID: "bob"})
		if err != nil || !slices.Equal(expiredIDs(r), []string{"keep"}) || r.Threads[0].Reason != engine.EventOperator {
			t.Fatalf("operator expiry: %+v (%v)", r, err)
		}
		if evs := drainEvents(events); len(evs) != 1 || evs[0].Reason != engine.EventOperator {
			t.Fatalf("operator events %+v", evs)
		}
	})
}

// A new turn on an expired thread starts a fresh thread, even before any
// sweep ran.
func TestAppendToExpiredThreadStartsFresh(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		say(t, e, "alice", "chat", "my old secret plan")
		say(t, e, "alice", "chat", "and its second part")
		clock.Add(time.Hour)
		res := say(t, e, "alice", "chat", "a new day")
		if !res.Created || res.Seqs[0] != 1 {
			t.Fatalf("append after expiry: created=%v seq=%d, want a fresh thread at seq 1", res.Created, res.Seqs[0])
		}
		ms, err := e.Messages(ctx, "chat", 0, 0)
		if err != nil || len(ms) != 1 || ms[0].Content != "a new day" {
			t.Fatalf("messages after expiry = %+v (%v)", ms, err)
		}
		lc, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "chat", ResourceID: "alice", Query: "secret plan"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lc.Messages {
			if strings.Contains(m.Content, "secret plan") {
				t.Fatalf("the fresh thread's context holds the old transcript: %+v", lc.Messages)
			}
		}
		// Activity before the lifetime keeps a thread alive.
		clock.Add(59 * time.Minute)
		if res := say(t, e, "alice", "chat", "still here"); res.Created {
			t.Fatal("an active thread was expired")
		}
	})
}

// A wall clock that moves backwards never expires anything early: idleness
// counts forward from the latest activity, which is never lowered.
func TestExpireClockMovesBackwards(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		say(t, e, "alice", "chat", "first")
		clock.Add(50 * time.Minute)
		say(t, e, "alice", "chat", "second") // last active at +50m
		clock.Add(-3 * time.Hour)            // the clock jumps back
		say(t, e, "alice", "chat", "third")  // must not lower the last activity
		th, err := e.GetThread(ctx, "chat")
		if err != nil {
			t.Fatal(err)
		}
		if want := newFakeClock().Now().Add(50 * time.Minute); !th.LastActiveAt.Equal(want) {
			t.Fatalf("last active %v, want %v (never lowered)", th.LastActiveAt, want)
		}
		// Back at the original +50m plus 59 minutes: not yet idle for an hour
		// counted from the latest activity.
		clock.Add(3*time.Hour + 59*time.Minute)
		if r, err := e.Expire(ctx, engine.ExpireRequest{}); err != nil || len(r.Threads) != 0 {
			t.Fatalf("expired %v (%v) before an hour of idleness", expiredIDs(r), err)
		}
		// A clock far behind the last activity: idleness is zero, not negative
		// or wrapped around.
		clock.Add(-48 * time.Hour)
		if r, err := e.Expire(ctx, engine.ExpireRequest{Idle: time.Millisecond}); err != nil || len(r.Threads) != 0 {
			t.Fatalf("clock behind: expired %v (%v)", expiredIDs(r), err)
		}
		clock.Add(48*time.Hour + time.Minute)
		if r, err := e.Expire(ctx, engine.ExpireRequest{}); err != nil || !slices.Equal(expiredIDs(r), []string{"chat"}) {
			t.Fatalf("after an hour of idleness: expired %v (%v), want [chat]", expiredIDs(r), err)
		}
	})
}

func TestSetIdleTTLErrors(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		say(t, e, "alice", "chat", "hi")
		cases := []struct {
			name             string
			thread, resource string
			want             error
		}{
			{"ErrThreadNotFound", "nope", "", engine.ErrThreadNotFound},
			{"ErrResourceMismatch", "chat", "mallory", engine.ErrResourceMismatch},
			{"ErrInvalidInput", "bad id!", "", engine.ErrInvalidInput},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := e.SetIdleTTL(ctx, c.thread, c.resource, time.Hour)
				if !errors.Is(err, c.want) {
					t.Fatalf("err = %v, want %v", err, c.want)
				}
				if strings.Contains(err.Error(), "alice") {
					t.Fatalf("error names the owner: %v", err)
				}
			})
		}
		if _, err := e.Expire(ctx, engine.ExpireRequest{Idle: -time.Second}); !errors.Is(err, engine.ErrInvalidInput) {
			t.Fatalf("negative idle: %v", err)
		}
	})
}

// ListThreads gives the lifecycle metadata, never content.
func TestListThreadsLifecycleMetadata(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		e := be.MustOpen(t, engine.Config{Now: clock.Now})
		say(t, e, "alice", "chat", "12345")
		clock.Add(time.Minute)
		say(t, e, "alice", "chat", "6789")
		if _, err := e.DeleteMessages(ctx, mustFirstID(t, e, "chat")); err != nil {
			t.Fatal(err)
		}
		ts, err := e.ListThreads(ctx, "alice")
		if err != nil || len(ts) != 1 {
			t.Fatalf("threads %+v (%v)", ts, err)
		}
		th := ts[0]
		// One message left: content "6789" (4 bytes) and metadata "{}" (2).
		if th.MessageCount != 1 || th.Bytes != 6 {
			t.Fatalf("messages=%d bytes=%d, want 1 and 6", th.MessageCount, th.Bytes)
		}
		if want := newFakeClock().Now().Add(time.Minute); !th.LastActiveAt.Equal(want) || !th.CreatedAt.Before(want) {
			t.Fatalf("created %v, last active %v (want %v)", th.CreatedAt, th.LastActiveAt, want)
		}
	})
}

func mustFirstID(t *testing.T, e *engine.Engine, thread string) string {
	t.Helper()
	ms, err := e.Messages(context.Background(), thread, 0, 0)
	if err != nil || len(ms) == 0 {
		t.Fatalf("messages of %s: %v", thread, err)
	}
	return ms[0].ID
}

// LoadContext on a thread past its lifetime, before any sweep, erases it
// and composes a new conversation: the old transcript never reaches a
// prompt after the thread's lifetime.
func TestLoadContextOnExpiredThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		events := make(chan engine.Event, 16)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		say(t, e, "alice", "chat", "the old transcript")
		clock.Add(time.Hour)
		// Another resource's request erases nothing.
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "m1", ThreadID: "chat", ResourceID: "mallory"}); !errors.Is(err, engine.ErrResourceMismatch) {
			t.Fatalf("another resource: %v", err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "chat", ResourceID: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Messages) != 0 {
			t.Fatalf("context of an expired thread: %+v", c.Messages)
		}
		if _, err := e.GetThread(ctx, "chat"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("the expired thread is still stored: %v", err)
		}
		if evs := drainEvents(events); len(evs) != 1 || evs[0].Reason != engine.EventExpired {
			t.Fatalf("events %+v, want one expired", evs)
		}
	})
}

// An Expire racing an Append never loses the acknowledged append: either
// the expiry erases the thread first and the append starts a fresh one, or
// the append (which expires the due thread itself) comes first and the
// expiry, re-checking inside its transaction, finds the thread active.
func TestExpireRacesAppend(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		for i := range 10 {
			clock := newFakeClock()
			e := be.MustOpen(t, engine.Config{Now: clock.Now, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
			say(t, e, "alice", "chat", "old")
			clock.Add(2 * time.Hour)
			var wg sync.WaitGroup
			var appendErr, expireErr error
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, appendErr = e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "alice",
					Messages: []engine.Message{{ID: "new", Role: engine.RoleUser, Content: "new"}}})
			}()
			go func() {
				defer wg.Done()
				_, expireErr = e.Expire(ctx, engine.ExpireRequest{})
			}()
			wg.Wait()
			if appendErr != nil || expireErr != nil {
				t.Fatalf("round %d: append %v, expire %v", i, appendErr, expireErr)
			}
			ms, err := e.Messages(ctx, "chat", 0, 0)
			if err != nil || len(ms) != 1 || ms[0].ID != "new" {
				t.Fatalf("round %d: messages %+v (%v), want only the acknowledged new one", i, ms, err)
			}
		}
	})
}
