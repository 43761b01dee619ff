package main

import (
	"fmt"
	"sync"

	"github.com/mnemo-go/mnemo/engine"
)

// watchOutboxWait reads the engine's events from raw while the check
// runs: engine.EventOutboxWait and EventOutboxDrain are said at once on
// stderr, the others are passed on, in order, to the returned channel
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
		switch ev.Reason {
		case engine.EventOutboxWait:
			c.sayOutboxWait(ev)
			return
		case engine.EventOutboxDrain:
			c.sayOutboxDrain(ev)
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

// sayOutboxDrain says that the check first indexes what the outbox holds:
// "mnemo check: indexing 9528 outbox rows first …".
func (c *CheckCommand) sayOutboxDrain(ev engine.Event) {
	fmt.Fprintf(c.Stderr, "mnemo check: indexing %s first (messages stored but not yet in both indexes: a process stopped before it indexed them, "+
		"or an outage); Ctrl-C stops the check (nothing is lost)\n", count(ev.Count, "outbox row"))
}
