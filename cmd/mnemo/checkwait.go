package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/mnemo-go/mnemo/engine"
)

// watchOutboxWait reads the engine's events from raw while the check
// runs: engine.EventOutboxWait is said at once on stderr, the others are
// passed on, in order, to the returned channel
// (for checkEvents; one without room is dropped, as the engine drops one
// raw has no room for).
// stop ends the watch and passes on what raw still holds; it may be
// called more than once.
//
// On Postgres the check waits for the outbox rows another process
// claimed (engine.SyncIndexes) rather than report them: they are embedded
// when that process finishes them or their lease ends, by this check's
// drainer if need be, and only then can it say every message is in both
// indexes. After a kill -9 of mnemo ingest that wait was 2 minutes of
// silence.
func (c *CheckCommand) watchOutboxWait(raw chan engine.Event) (events chan engine.Event, stop func()) {
	events = make(chan engine.Event, cap(raw))
	quit, done := make(chan struct{}), make(chan struct{})
	pass := func(ev engine.Event) {
		if ev.Reason == engine.EventOutboxWait {
			c.sayOutboxWait(ev)
			return
		}
		select {
		case events <- ev:
		default:
		}
	}
	go func() {
		defer close(done)
		for {
			select {
			case ev := <-raw:
				pass(ev)
			case <-quit:
				for {
					select {
					case ev := <-raw:
						pass(ev)
					default:
						return
					}
				}
			}
		}
	}()
	var once sync.Once
	return events, func() { once.Do(func() { close(quit); <-done }) }
}

// sayOutboxWait says what the check waits for and until when at the
// latest: "mnemo check: waiting for 12 outbox rows another process
// claimed to embed, until it finishes them or their lease ends
// (04:31:07 UTC at the latest) …".
func (c *CheckCommand) sayOutboxWait(ev engine.Event) {
	fmt.Fprintf(c.Stderr, "mnemo check: waiting for %s another process claimed to embed, until it finishes them or their lease ends (%s UTC at the latest; "+
		"a process killed while embedding leaves them to it), then this check embeds what is left; Ctrl-C stops the check (nothing is lost)\n",
		count(ev.Count, "outbox row"), ev.Until.UTC().Format("15:04:05"))
}

// outboxNotice is the fewest queued outbox rows mnemo check says it
// indexes before it checks: fewer are indexed within about a second
// (hash-384 embedded ~200 rows a second on a loaded 2-core machine,
// walk29).
const outboxNotice = 100

// indexQueued indexes what the outbox holds before the check compares
// the indexes with the database (CheckWith drains what is left), saying
// so first on stderr when it is outboxNotice rows or more, with
// outboxProgress's bar on a terminal: after a kill -9 of reindex
// --vectors on Postgres (9,528 rows queued) the check said nothing for
// ~45 s while it embedded them.
func (c *CheckCommand) indexQueued(ctx context.Context, e *engine.Engine) error {
	st, err := e.Stats(ctx)
	if err != nil || st.OutboxPending < outboxNotice {
		return nil // CheckWith drains them, and reports what fails
	}
	fmt.Fprintf(c.Stderr, "mnemo check: indexing %s first (messages stored but not yet in both indexes: a process stopped before it indexed them, "+
		"or an outage); Ctrl-C stops the check (nothing is lost)\n", count(st.OutboxPending, "outbox row"))
	return c.outboxProgress(ctx, e, st.OutboxPending, "indexing (lexical, vectors)", func() error { return e.SyncIndexes(ctx) })
}
