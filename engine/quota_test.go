package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// evictions returns "reason thread@resource" for each eviction event.
func evictions(ch chan engine.Event) []string {
	var out []string
	for _, ev := range drainEvents(ch) {
		if strings.HasPrefix(string(ev.Reason), "evicted-") {
			out = append(out, string(ev.Reason)+" "+ev.ThreadID+"@"+ev.ResourceID)
		}
	}
	return out
}

// Under a resource's message bound the least recently active thread of
// that resource goes first, never the one appended to and never another
// resource's.
func TestQuotaResourceEvictsLeastRecentlyActive(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		clock := newFakeClock()
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events,
			Lifecycle: engine.Lifecycle{Quota: engine.Quota{ResourceMessages: 3}}})
		say(t, e, "bob", "b-old", "bob's oldest") // older than all of alice's, another resource
		clock.Add(time.Minute)
		say(t, e, "alice", "a1", "one")
		clock.Add(time.Minute)
		say(t, e, "alice", "a2", "two")
		clock.Add(time.Minute)
		say(t, e, "alice", "a3", "three")
		clock.Add(time.Minute)
		res := say(t, e, "alice", "a1", "one again") // 4 messages: a1 is now the most recent, a2 the least
		if !slices.Equal(res.Evicted, []string{"a2"}) {
			t.Fatalf("evicted %v, want [a2]", res.Evicted)
		}
		clock.Add(time.Minute)
		res = say(t, e, "alice", "a4", "four and five") // 4 again: a3 is the least recently active
		if !slices.Equal(res.Evicted, []string{"a3"}) {
			t.Fatalf("evicted %v, want [a3]", res.Evicted)
		}
		if got := threadIDs(t, e, ""); !slices.Equal(got, []string{"a1", "a4", "b-old"}) {
			t.Fatalf("threads %v", got)
		}
		want := []string{"evicted-resource-quota a2@alice", "evicted-resource-quota a3@alice"}
		if got := evictions(events); !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})
}

// The thread being appended to is never evicted, even when it alone is
// over the bound.
func TestQuotaNeverEvictsTheCurrentThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		e := be.MustOpen(t, engine.Config{Lifecycle: engine.Lifecycle{Quota: engine.Quota{ResourceBytes: 10}}})
		say(t, e, "alice", "o1", "x")
		say(t, e, "alice", "o2", "x")
		res := say(t, e, "alice", "big", strings.Repeat("y", 50))
		if !slices.Equal(res.Evicted, []string{"o1", "o2"}) {
			t.Fatalf("evicted %v, want [o1 o2]", res.Evicted)
		}
		res = say(t, e, "alice", "big", "more")
		if len(res.Evicted) != 0 {
			t.Fatalf("evicted %v, want nothing (only the current thread is left)", res.Evicted)
		}
		if got := threadIDs(t, e, "alice"); !slices.Equal(got, []string{"big"}) {
			t.Fatalf("threads %v", got)
		}
	})
}

// Under the store's bound the least recently active thread of the whole
// store goes first; ties of last activity are broken by resource, then
// thread id.
func TestQuotaStoreEvictionOrder(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		clock := newFakeClock()
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Events: events,
			Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: 4}}})
		// Four threads active at the same instant.
		say(t, e, "carol", "t1", "c")
		say(t, e, "alice", "t9", "a")
		say(t, e, "alice", "t2", "a")
		say(t, e, "bob", "t0", "b")
		clock.Add(time.Minute)
		res := say(t, e, "dave", "d", "d") // 5 > 4: evict one
		if !slices.Equal(res.Evicted, []string{"t2"}) {
			t.Fatalf("evicted %v, want [t2] (alice before bob and carol, t2 before t9)", res.Evicted)
		}
		if !slices.Equal(res.EvictedResources, []string{"alice"}) { // dave's append, alice's thread
			t.Fatalf("evicted resources %v, want [alice]", res.EvictedResources)
		}
		res = say(t, e, "dave", "d2", "d")
		if !slices.Equal(res.Evicted, []string{"t9"}) {
			t.Fatalf("evicted %v, want [t9]", res.Evicted)
		}
		want := []string{"evicted-store-quota t2@alice", "evicted-store-quota t9@alice"}
		if got := evictions(events); !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	})
}

// With Refuse, an append over a bound fails with a typed error naming the
// bound, and stores nothing.
func TestQuotaRefuse(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Lifecycle: engine.Lifecycle{Quota: engine.Quota{
			ResourceMessages: 2, StoreBytes: 40, Refuse: true}}})
		say(t, e, "alice", "a", "one")
		say(t, e, "alice", "b", "two")
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "a", ResourceID: "alice",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: "three"}}})
		var qe *engine.QuotaError
		if !errors.Is(err, engine.ErrQuotaExceeded) || !errors.As(err, &qe) || qe.Scope != "resource" || qe.Field != "messages" || qe.Limit != 2 || qe.Have != 3 {
			t.Fatalf("err = %v (%+v), want a resource messages QuotaError", err, qe)
		}
		if th, _ := e.GetThread(ctx, "a"); th.MessageCount != 1 {
			t.Fatalf("thread a holds %d messages after a refusal, want 1", th.MessageCount)
		}
		// The store bound: bob's append would take the store over 40 bytes;
		// the error gives no figure of what others store.
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "c", ResourceID: "bob",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: strings.Repeat("z", 40)}}})
		if !errors.As(err, &qe) || qe.Scope != "store" || qe.Field != "bytes" || qe.Have != 0 || strings.Contains(err.Error(), "alice") {
			t.Fatalf("err = %v (%+v), want a store bytes QuotaError naming nobody", err, qe)
		}
		if _, err := e.GetThread(ctx, "c"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("a refused append created its thread: %v", err)
		}
		if got := threadIDs(t, e, ""); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("threads %v: a refusal must evict nothing", got)
		}
	})
}
