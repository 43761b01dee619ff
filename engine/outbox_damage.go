package engine

// This file holds the background drainer back while mnemo.db is known
// damaged (damagedFile: a damaged page met by this process, the record
// of damage beside the file, or a check's finding it could not record).
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
// (drainDeletes), as erasures still run.

// drainHeldForDamage reports whether the background drainer must leave
// the outbox alone now (damagedFile), saying so in the log when it begins
// and when it ends (the record removed: damagedFile is read again at
// most every store.DamageMarkRecheck, which is how often the drainer
// looks while held).
func (e *Engine) drainHeldForDamage() bool {
	err := e.damagedFile()
	held := err != nil
	if e.drainHeld.Swap(held) == held {
		return held
	}
	if held {
		e.log.Warn("outbox drain held: nothing is embedded or indexed into a database file known damaged; the rows queued stay for the process after the restore or salvage", "err", err)
	} else {
		e.log.Info("outbox drain resumed: the database file is no longer known damaged")
	}
	return held
}
