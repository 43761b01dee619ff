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
// new file), and start it again. Nothing is written to the new file. Not ErrDatabaseCorrupt: the file is not known damaged. A
// mnemo.db removed and not replaced is UnlinkedDatabaseError's.
var ErrDatabaseReplaced = store.ErrDatabaseReplaced

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
	err := fmt.Errorf("%w: %s in %s is another file than the one this process opened; nothing more is stored, as it would go into the old file, which is lost when this process stops: "+
		"stop it, delete %s-wal and %s-shm beside the new %s (the old file's: the next open would apply that log over it), and start it again",
		ErrDatabaseReplaced, what, e.dir, DatabaseFile, DatabaseFile, DatabaseFile)
	if e.replacedLogged.CompareAndSwap(false, true) {
		e.log.Error("the database file was replaced while this process had it open (a backup restored under it?): every write is refused until it is restarted",
			"path", filepath.Join(e.dir, DatabaseFile), "replaced", what)
	}
	return err
}
