package engine

import (
	"sync/atomic"
	"time"
)

// EventReason is the stable code of an Event. Codes are part of the API:
// they never change meaning and are never reused; new ones may be added.
type EventReason string

// Event reasons.
const (
	// EventErased: messages, a thread or a resource were erased (rows,
	// index entries, stored embeddings). Published when the erasure
	// returns, after the physical purge.
	EventErased EventReason = "erased"
	// EventEraseResumed: Open found an erasure that a crash had interrupted
	// after its transaction committed, and completed it (index removal,
	// purge, WAL checkpoint).
	EventEraseResumed EventReason = "erase-resumed"
	// EventInvalidated: observations or reflections were invalidated
	// because a turn they were derived from was erased (IDs lists them).
	EventInvalidated EventReason = "invalidated"
	// EventQuarantined: a corrupt or damaged index directory was moved
	// aside into the quarantine directory (Path) — at Open when it does not
	// open, or in use when bleve panicked or failed reading it (a search,
	// Check, an erasure's merge, scorch's background merger); Detail carries
	// the error. An EventRebuild follows.
	EventQuarantined EventReason = "quarantined"
	// EventRebuild: a derived index is being rebuilt from SQLite (after a
	// quarantine, a missing or lagging index directory, Reindex, damaged
	// stored embeddings, or a resource's shard snapshot changed in place
	// while mapped: ResourceID names it).
	EventRebuild EventReason = "rebuild"
	// EventOutboxWait (Postgres): SyncIndexes, and so Check, waits for
	// outbox rows another drainer claimed (Count rows), until that drainer
	// finishes them or their lease ends (Until, at the latest; 2 minutes
	// after the claim) and this one embeds them: a process killed while
	// embedding leaves its claim to the lease. Published once per wait,
	// when it begins.
	EventOutboxWait EventReason = "outbox-wait"
)

// Event reports something the engine did on its own account that an operator
// may want to know: erasure, quarantine, invalidation, rebuild. Events carry
// ids and counts, never message content.
type Event struct {
	// Time is when the event was published (the engine's clock, UTC).
	Time time.Time `json:"time"`
	// Reason is the stable code.
	Reason EventReason `json:"reason"`
	// ThreadID and ResourceID name what the event is about, when it is
	// about one thread or resource.
	ThreadID string `json:"threadId,omitempty"`
	// ResourceID is the resource concerned ("" when none is).
	ResourceID string `json:"resourceId,omitempty"`
	// IDs are the message ids (EventErased) or observation ids
	// (EventInvalidated) concerned.
	IDs []string `json:"ids,omitempty"`
	// Count is the number of items concerned (messages erased, observations
	// invalidated, messages queued for a rebuild).
	Count int `json:"count,omitempty"`
	// Path is a file or directory concerned (EventQuarantined: the
	// quarantined directory).
	Path string `json:"path,omitempty"`
	// Until is when what the event waits for ends at the latest
	// (EventOutboxWait: the last claimed row's lease, UTC); zero for the
	// other events.
	Until time.Time `json:"until,omitzero"`
	// Detail is a human-readable explanation; not stable.
	Detail string `json:"detail,omitempty"`
}

// eventSink counts the events Config.Events had no room for.
type eventSink struct {
	dropped atomic.Int64
}

// publish sends ev when the channel has room and counts it as dropped
// otherwise. It never blocks: a slow consumer cannot stall a write.
func (e *Engine) publish(ev Event) {
	ch := e.cfg.Events
	if ch == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = e.now().UTC()
	}
	select {
	case ch <- ev:
	default:
		e.events.dropped.Add(1)
		e.log.Warn("event dropped: the events channel is full", "reason", ev.Reason)
	}
}

// DroppedEvents returns how many events were dropped because
// Config.Events was full.
func (e *Engine) DroppedEvents() int64 { return e.events.dropped.Load() }
