package main

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/mnemo-go/mnemo/engine"
)

// maxEventNotes is how many threads a one-shot command names one line
// each after it ran (eventNotes.say); the rest are counted on one line.
const maxEventNotes = 10

// eventNotes collects the engine events of a one-shot command (every
// command whose engine has no log: not serve or mcp, which log them,
// eventlog.go; a command that syncs the indexes, openSyncing, has them
// passed on by its watch) for Main.Run to say the
// ones a person must know of once the command has closed its engine: a
// thread the engine erased on its own account, evicted by a quota
// (mnemo ingest's appends) or expired by the append or context that met
// it idle past its lifetime (mnemo ingest, mnemo context). Before, these
// were silent outside serve and mcp, though erased for good. Other events
// (an erasure the command asked for, a rebuild) say nothing here: the
// command reports what it did. mnemo observe neither appends nor loads a
// context, so its engine erases nothing on its own account. A lexical
// index the engine quarantined (engine.EventQuarantined: at Open, or when
// a search, an erasure or the drainer read a damaged segment) is said too,
// but by mnemo check, which reports it among its findings: before, a
// search that quarantined the index exited 0 with stderr empty.
type eventNotes struct {
	ch      chan engine.Event
	engines []*engine.Engine // for their DroppedEvents
	// dropped counts the events add had no room for (from a watch's
	// goroutine: openSyncing).
	dropped atomic.Int64
	// keptOutbox is set when the command's engine runs no outbox drainer
	// (engine.Config.KeepOutbox: a command that only reads), which then
	// gets no rebuild further (sayQuarantined).
	keptOutbox bool
	// target is the memory the command opened, named in the commands
	// its notes suggest.
	target target
}

// add passes ev on from a reader of the engine's own channel
// (watchOutboxWait); one without room is counted as dropped.
func (n *eventNotes) add(ev engine.Event) {
	select {
	case n.ch <- ev:
	default:
		n.dropped.Add(1)
	}
}

// eventNotesFor returns the command's eventNotes, made on first use.
func (m *Main) eventNotesFor() *eventNotes {
	if m.notes == nil {
		m.notes = &eventNotes{ch: make(chan engine.Event, eventLogBuffer)}
	}
	return m.notes
}

// say writes to w, as warnings of command name, the threads evicted or
// expired (expire: only the evicted ones, as mnemo expire lists what it
// expired), maxEventNotes at most, then how many more, and whether the
// engine dropped events. It reads what is buffered and returns.
func (n *eventNotes) say(w io.Writer, name string) {
	if n == nil {
		return
	}
	said, more, moreMsgs := 0, 0, 0
	for {
		var ev engine.Event
		select {
		case ev = <-n.ch:
		default:
			n.sayRest(w, name, said+more, more, moreMsgs)
			return
		}
		if ev.Reason == engine.EventQuarantined {
			if name != "check" {
				sayQuarantined(w, name, ev, n.keptOutbox, n.target)
			}
			continue
		}
		what := noteWhat(ev.Reason)
		if what == "" || (name == "expire" && ev.Reason == engine.EventExpired) {
			continue
		}
		if said == maxEventNotes {
			more, moreMsgs = more+1, moreMsgs+ev.Count
			continue
		}
		said++
		fmt.Fprintf(w, "mnemo %s: warning: thread %q of resource %q %s; %s erased\n", name, ev.ThreadID, ev.ResourceID, what, count(int64(ev.Count), "message"))
	}
}

// sayRest ends say: the threads not named, and the events the engine
// could not keep (its channel full), which may hide more.
func (n *eventNotes) sayRest(w io.Writer, name string, total, more, moreMsgs int) {
	if more > 0 {
		fmt.Fprintf(w, "mnemo %s: warning: %s more evicted or expired (%s erased)\n", name, count(int64(more), "thread"), count(int64(moreMsgs), "message"))
	}
	dropped := n.dropped.Load()
	for _, e := range n.engines {
		dropped += e.DroppedEvents()
	}
	if dropped > 0 && total > 0 {
		fmt.Fprintf(w, "mnemo %s: warning: %s more not counted: more threads may have been evicted or expired; to list what is left, run: %s\n", name, count(dropped, "engine event"), n.target.threadsCmd(""))
	}
}

// sayQuarantined writes to w the warning of command name that its engine
// quarantined the lexical index (ev, engine.EventQuarantined): what was
// found damaged, where the copy went, that the index is rebuilt from
// mnemo.db, which holds every message, and how the rebuild gets on
// (catchUpHow; readCatchUpHow when keptOutbox: the engine ran no drainer).
func sayQuarantined(w io.Writer, name string, ev engine.Event, keptOutbox bool, t target) {
	how := catchUpHow("the rebuild", t)
	if keptOutbox {
		how = readCatchUpHow(name, "the rebuild", t)
	}
	fmt.Fprintf(w, "mnemo %s: warning: the lexical index was found damaged (%s) and moved to %s; it is being rebuilt from %s, which holds every message: nothing is lost; %s\n",
		name, ev.Detail, ev.Path, engine.DatabaseFile, how)
}

// noteWhat is what happened to a thread in an event of reason r, as
// eventNotes says it; "" for an event it does not say.
func noteWhat(r engine.EventReason) string {
	switch r {
	case engine.EventEvictedStoreQuota:
		return "was evicted: the store is over its quota (lifecycle.quota in mnemo.json)"
	case engine.EventEvictedResourceQuota:
		return "was evicted: its resource is over its quota (lifecycle.quota in mnemo.json)"
	case engine.EventExpired:
		return "expired: idle for its lifetime (lifecycle.idleTtl in mnemo.json, or its own)"
	}
	return ""
}
