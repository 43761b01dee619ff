package engine

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file says when the engine's background work may write mnemo.db:
// the outbox drainer (outbox.go) and the observer with its reflector
// (observe.go's observeLoop) ask backgroundHeld before each round. They
// hold while damagedFile refuses (a damaged page met by this process,
// the record of damage beside the file, a check's finding it could not
// record, or the file replaced under the process) and start again when
// it no longer does: the record removed, by a salvage or a full check of
// another process, or by hand, is seen within store.DamageMarkRecheck
// (2 s), which is how often a held worker looks. A damaged page met by
// this process, and a replacement, hold them until the process ends.
//
// The drainer's writes are derived data (embeddings, the outbox's own
// rows; the lexical index is outside the file), but they are writes into
// a file every other writer leaves alone then: into a damaged b-tree a
// write can spread the damage, and a backup restored drops them anyway,
// as it drops what Append refuses. The rows queued before the damage was
// found stay queued in the file: the process that runs after the restore
// or salvage (or this one, once the record is removed) drains them. The
// batch in flight when the damage is found finishes (at most outboxBatch
// rows). The operator's own rebuilds still write: SyncIndexes (mnemo
// check's, reindex's), as the restore's steps run reindex while the
// record is there. Erasures apply their delete rows themselves
// (drainDeletes), as erasures still run, and so do expiry's (mnemo
// serve's lifecycle sweep calls Expire on its own ticker, held by
// nothing: an expiry only erases). The observer's model call in flight when the damage is found
// stores nothing (observe.Config.Writable).
//
// Each worker has its own flag (Engine.drainHeld, observeState.held), so
// each logs once when it begins to hold and once when it resumes.

// bgWorker names a background worker and what it leaves undone while
// held, for its log lines.
type bgWorker struct {
	name   string // "outbox drain"
	leaves string // what is not done meanwhile, and who does it
}

// The background workers that hold (backgroundHeld).
var (
	drainWorker = bgWorker{name: "outbox drain",
		leaves: "nothing is embedded or indexed, the rows queued stay queued"}
	observeWorker = bgWorker{name: "background observer",
		leaves: "no thread is observed or reflected, the threads due wait"}
)

// backgroundHeld reports whether worker w must leave mnemo.db alone now
// (damagedFile), keeping the answer in held (w's flag) and logging when
// it begins to hold, with the reason (the file known damaged, or
// replaced), and when it resumes. Always false on Postgres.
func (e *Engine) backgroundHeld(held *atomic.Bool, w bgWorker) bool {
	err := e.damagedFile()
	now := err != nil
	if held.Swap(now) == now {
		return now
	}
	switch {
	case errors.Is(err, ErrDatabaseReplaced):
		e.log.Warn(w.name+" held: the database file was replaced while this process had it open; "+w.leaves+" until it is restarted", "err", err)
	case now:
		e.log.Warn(w.name+" held: the database file is known damaged; "+w.leaves+" until it is not (the record of damage removed), or for the process after the restore or salvage", "err", err)
	default:
		e.log.Info(w.name + " resumed: the database file is no longer known damaged")
	}
	return now
}

// waitWritable waits while worker w is held (backgroundHeld, its flag
// held), looking again every store.DamageMarkRecheck. It returns ok
// false once Close began (e.bg done), and waited true when it held at
// all.
func (e *Engine) waitWritable(held *atomic.Bool, w bgWorker) (waited, ok bool) {
	for e.backgroundHeld(held, w) {
		waited = true
		t := time.NewTimer(store.DamageMarkRecheck)
		select {
		case <-e.bg.Done():
			t.Stop()
			return waited, false
		case <-t.C:
		}
	}
	return waited, e.bg.Err() == nil
}
