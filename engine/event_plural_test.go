package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestEventDetailPlurals: an event's detail says a count of one in the
// singular: the erasure of a one-message thread is "thread erased: 1
// message, 1 thread", as mnemo serve's log prints it for an eviction
// (before: "1 messages, 1 threads"), and of two messages "2 messages".
func TestEventDetailPlurals(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		events := make(chan engine.Event, 64)
		e := be.MustOpen(t, engine.Config{Events: events})
		for _, m := range []struct{ thread, id string }{{"one", "a1"}, {"two", "b1"}, {"two", "b2"}} {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: m.thread, ResourceID: "r", Messages: []engine.Message{user(m.id, "hello")}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct{ thread, want string }{
			{"one", "thread erased: 1 message, 1 thread; purge"},
			{"two", "thread erased: 2 messages, 1 thread; purge"},
		} {
			drainEvents(events)
			if _, err := e.DeleteThread(ctx, c.thread); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ev := range drainEvents(events) {
				if ev.Reason == engine.EventErased {
					got = append(got, ev.Detail)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("erasure of thread %s: details %q, want one starting %q", c.thread, got, c.want)
			}
		}
	})
}
