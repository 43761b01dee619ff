package engine

import (
	"fmt"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ErrDatabaseReplaced is returned (wrapped, naming the file) by every call
// that would store new data (as ErrDatabaseCorrupt is: Append, LoadContext,
// Observe, working-memory updates, SetIdleTTL, RestoreDispatch), by Ping,
// and by every other write (an erasure, Expire, the drainer's) once
// mnemo.db, or the mnemo.db-wal this process writes, was replaced at its
// path while the engine had it open: a backup renamed over mnemo.db (mv
// backup.db mnemo.db, or a cp that makes a new file) under a running mnemo
// serve, or the -wal removed (Linux only). The engine's connections still
// write the old file, which has no name any more: every write would be
// lost when the process stops. Seen at most store.DamageMarkRecheck (2 s)
// after the replacement, and until the process ends: stop it, delete
// mnemo.db-wal and mnemo.db-shm beside the new mnemo.db (the old file's:
// its Close leaves them, and the next Open would apply that log over the
// new file), rebuild the indexes from the new file (mnemo --dir DIR
// reindex: they hold the text of the messages the new file lacks, which
// mnemo check reports and no erasure reaches, readme68 F5), and start it
// again. Nothing is written to the new file. Not ErrDatabaseCorrupt: the
// file is not known damaged. The -wal alone removed is ErrWALReplaced,
// which matches this error too. A mnemo.db removed and not replaced is
// UnlinkedDatabaseError's.
var ErrDatabaseReplaced = store.ErrDatabaseReplaced

// ErrWALReplaced is ErrDatabaseReplaced (errors.Is matches both) when
// only mnemo.db-wal was removed from its path (deleted, or moved to
// another name), or another file put there (Linux only), and mnemo.db
// was not replaced: every write is refused alike, but the file at the path is still the one the engine opened.
// The log the engine holds open has the writes it acknowledged that are
// not yet checkpointed into mnemo.db: Close (a clean stop of mnemo serve:
// SIGTERM, Ctrl-C) checkpoints them into the file and deletes the -wal
// and -shm at their paths, so nothing acknowledged is lost and the
// restart needs no other step; a process killed (kill -9) loses them,
// and mnemo --dir DIR reindex then drops their text from the indexes
// (readme68 F11: the advice said mnemo.db was replaced and the writes
// lost). A log moved to another name stays there after the close, with
// their text: the advice says to delete it.
var ErrWALReplaced = store.ErrWALReplaced

// replacedFile returns ErrDatabaseReplaced wrapped, naming what was
// replaced (store.Replaced), and logs it once; nil while nothing was, and
// on Postgres.
func (e *Engine) replacedFile() error {
	if e.db == nil {
		return nil
	}
	what := store.Replaced(e.db)
	if what == "" {
		return nil
	}
	if what == DatabaseFile+"-wal" {
		return e.walReplaced()
	}
	err := fmt.Errorf("%w: %s in %s is another file than the one this process opened; nothing more is stored, as it would go into the old file, which is lost when this process stops: "+
		"stop it, delete %s-wal and %s-shm beside the new %s (the old file's: the next open would apply that log over it), "+
		"rebuild the indexes from the new file (they hold the text of messages it lacks): mnemo --dir %s reindex, and start it again",
		ErrDatabaseReplaced, what, e.dir, DatabaseFile, DatabaseFile, DatabaseFile, e.dir)
	if e.replacedLogged.CompareAndSwap(false, true) {
		e.log.Error("the database file was replaced while this process had it open (a backup restored under it?): every write is refused until it is restarted; "+
			"stop it, delete the old file's -wal and -shm, run mnemo reindex, and start it again",
			"path", filepath.Join(e.dir, DatabaseFile), "replaced", what)
	}
	return err
}

// walReplaced returns ErrWALReplaced wrapped, with what to do, and logs
// it once.
func (e *Engine) walReplaced() error {
	wal := DatabaseFile + "-wal"
	err := fmt.Errorf("%w: %s in %s is not the log this process writes; nothing more is stored, as it would go into that log only. "+
		"The writes not yet checkpointed into %s are in the removed or moved log, which this process holds open: "+
		"stop it cleanly (SIGTERM or Ctrl-C, not kill -9), and its close writes them into %s and deletes %s and %s-shm; then start it again. "+
		"A log moved to another name stays there with their text, which no erasure reaches: delete it after the stop (mnemo check names it). "+
		"A process killed loses them: then run mnemo --dir %s reindex before starting it again (the indexes hold their text)",
		ErrWALReplaced, wal, e.dir, DatabaseFile, DatabaseFile, wal, DatabaseFile, e.dir)
	if e.replacedLogged.CompareAndSwap(false, true) {
		e.log.Error("the database file's write-ahead log was removed, moved or replaced while this process had it open: every write is refused until it is restarted; "+
			"stop it cleanly (not kill -9): its close writes the removed log's commits into the database file, where a kill loses them",
			"path", filepath.Join(e.dir, wal))
	}
	return err
}
