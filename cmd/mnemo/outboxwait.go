package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// The commands that bring the indexes up to date (engine.SyncIndexes,
// engine.Engine.Reindex) before they answer: mnemo check, ingest,
// reindex and eval. Each says at once on stderr when it waits for another
// process's outbox rows (sayOutboxWait) and, but reindex, which rebuilds
// everything anyway, when it first indexes a backlog others left
// (indexQueued). mnemo demo writes a new data directory and mnemo bench a
// new one or a new schema: neither finds rows of another process; mnemo
// salvage holds its data directory's lock, so no other process claims
// rows there.

// openSyncing opens the engine on t as openObserved does, for a command
// that brings the indexes up to date, its events watched by w
// (watchOutboxWait). Call w.Stop once the syncing is done.
func (m *Main) openSyncing(ctx context.Context, t target) (*engine.Engine, *outboxWatch, error) {
	raw := make(chan engine.Event, 64)
	w := m.watchOutboxWait(raw)
	e, err := m.openObserved(ctx, t, raw)
	if err != nil {
		w.Stop()
		return nil, nil, err
	}
	m.notes.engines = append(m.notes.engines, e) // for its DroppedEvents
	return e, w, nil
}

// outboxWatch reads an engine's events while a command syncs its indexes
// (watchOutboxWait). Settle and Stop are for the command's goroutine.
type outboxWatch struct {
	// Events passes on the events but EventOutboxWait, in order (for
	// checkEvents); one without room is dropped, as the engine drops one
	// its channel has no room for.
	Events chan engine.Event
	settle chan chan struct{}
	quit   chan struct{}
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	erased erasedByRun // since the last TakeErased
	// rebuilds are the details of the engine-wide EventRebuild events
	// (backlogCause), in order.
	rebuilds []string
}

// watchOutboxWait starts reading the engine's events from raw:
// engine.EventOutboxWait is said at once on stderr (sayOutboxWait), the
// others are passed on to Events and to the command's eventNotes (which
// Main.Run says the evictions and expiries of: mnemo ingest's appends).
//
// On Postgres, SyncIndexes waits for the outbox rows another process
// claimed rather than return with them unindexed: they are embedded when
// that process finishes them or their lease ends, by this command's
// drainer if need be. After a kill -9 of mnemo ingest that wait was 2
// minutes of silence (check), or of a bar that did not move (ingest on a
// terminal).
func (m *Main) watchOutboxWait(raw chan engine.Event) *outboxWatch {
	w := &outboxWatch{Events: make(chan engine.Event, cap(raw)), settle: make(chan chan struct{}),
		quit: make(chan struct{}), done: make(chan struct{})}
	notes := m.eventNotesFor() // made here, not in the goroutine
	pass := func(ev engine.Event) {
		if ev.Reason == engine.EventOutboxWait {
			m.sayOutboxWait(ev)
			return
		}
		notes.add(ev)
		w.mu.Lock()
		w.erased.add(ev)
		if ev.Reason == engine.EventRebuild && ev.ResourceID == "" && ev.Detail != "" {
			w.rebuilds = append(w.rebuilds, ev.Detail)
		}
		w.mu.Unlock()
		select {
		case w.Events <- ev:
		default:
		}
	}
	drain := func() {
		for {
			select {
			case ev := <-raw:
				pass(ev)
			default:
				return
			}
		}
	}
	go func() {
		defer close(w.done)
		for {
			select {
			case ev := <-raw:
				pass(ev)
			case ack := <-w.settle:
				drain()
				close(ack)
			case <-w.quit:
				drain()
				return
			}
		}
	}()
	return w
}

// Settle returns once what the engine published so far is said or passed
// on: after a sync returns, the command may write to stderr again (its
// wait line was written first, not between the command's own lines).
func (w *outboxWatch) Settle() {
	ack := make(chan struct{})
	select {
	case w.settle <- ack:
		<-ack
	case <-w.done:
	}
}

// TakeErased returns the threads the engine evicted or expired on its
// own account since the last call (or the watch's start), once what it
// published so far is passed on (Settle): an Append publishes them before
// it returns.
func (w *outboxWatch) TakeErased() erasedByRun {
	w.Settle()
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.erased
	w.erased = erasedByRun{}
	return r
}

// Rebuilds returns the details of the engine-wide rebuilds the engine
// published so far (at its Open: a lexical index of an older analyzer,
// behind the store or quarantined; an embedder switched; embeddings
// missing), once they are passed on (Settle).
func (w *outboxWatch) Rebuilds() []string {
	w.Settle()
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.rebuilds)
}

// Stop ends the watch, after passing on what the engine published so
// far. It may be called more than once.
func (w *outboxWatch) Stop() {
	w.once.Do(func() { close(w.quit); <-w.done })
}

// sayOutboxWait says what the command waits for and until when at the
// latest: "mnemo ingest: waiting for 12 outbox rows another process
// claimed to embed, until it finishes them or their lease ends (04:31:07
// UTC at the latest; …), then this ingest embeds what is left; Ctrl-C
// stops the ingest (nothing is lost)".
func (m *Main) sayOutboxWait(ev engine.Event) {
	fmt.Fprintf(m.Stderr, "mnemo %s: waiting for %s another process claimed to embed, until it finishes them or their lease ends (%s UTC at the latest; "+
		"a process killed while embedding leaves them to it), then this %s embeds what is left; Ctrl-C stops the %s (nothing is lost)\n",
		m.command, count(ev.Count, "outbox row"), ev.Until.UTC().Format("15:04:05"), m.command, m.command)
}

// outboxNotice is the fewest queued outbox rows a command says it
// indexes before it goes on: fewer are indexed within about a second
// (hash-384 embedded ~200 rows a second on a loaded 2-core machine,
// walk29).
const outboxNotice = 100

// indexQueued indexes what the outbox holds before the command goes on
// (check compares the indexes with the database, ingest stores its
// input), saying so first on stderr when it is outboxNotice rows or more,
// with outboxProgress's bar on a terminal: after a kill -9 of reindex
// --vectors on Postgres (9,528 rows queued) check said nothing for ~45 s
// while it embedded them, and an ingest of one message as long at its
// end. Fewer rows are left to the command's own sync. Why they are queued
// is backlogCause's, from the data directory and the rebuilds w saw the
// engine's open begin.
func (m *Main) indexQueued(ctx context.Context, e *engine.Engine, w *outboxWatch) error {
	st, err := e.Stats(ctx)
	if err != nil || st.OutboxPending < outboxNotice {
		return nil // the command's own sync drains them, and reports what fails
	}
	fmt.Fprintf(m.Stderr, "mnemo %s: indexing %s first (%s); Ctrl-C stops the %s (nothing is lost)\n",
		m.command, count(st.OutboxPending, "outbox row"), backlogCause(e.Dir(), st, time.Now(), w.Rebuilds()), m.command)
	return m.outboxProgress(ctx, e, st.OutboxPending, "indexing (lexical, vectors)", func() error { return e.SyncIndexes(ctx) })
}
