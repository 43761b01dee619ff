package store

import (
	"errors"
	"fmt"
)

// SQLite's primary result codes of a lock another connection holds
// (https://sqlite.org/rescode.html).
const (
	sqliteBusy   = 5 // SQLITE_BUSY: the database file is locked
	sqliteLocked = 6 // SQLITE_LOCKED: a table is locked (shared cache)
)

// busyError is SQLite's SQLITE_BUSY or SQLITE_LOCKED on a write that had
// passed the write gate: a connection outside this process's gate (another
// process: a sqlite3 shell or a script in BEGIN IMMEDIATE; a handle Open
// did not make) held the write lock for the whole busy timeout. It
// matches ErrWriteBusy, so that the write is reported as the transient
// overload it is (HTTP 503 database-busy, MCP's retry text), and unwraps
// to SQLite's error (ResultCode 5). ba303622: it was a 500 internal.
type busyError struct {
	what string // the write: "begin a write transaction", "write", "commit"
	err  error
}

func (e busyError) Error() string {
	return fmt.Sprintf("store: %s: another connection to the database file (another process?) held its write lock for the whole busy timeout: %v", e.what, e.err)
}

func (e busyError) Is(target error) bool { return target == ErrWriteBusy }

func (e busyError) Unwrap() error { return e.err }

// writeBusy returns err, of the write what, as a busyError when it is
// SQLite's SQLITE_BUSY or SQLITE_LOCKED (in any extended form), unless it
// is a connection's open that failed so (lockedError, which says more).
func writeBusy(what string, err error) error {
	if errors.Is(err, ErrDatabaseLocked) {
		return err
	}
	if c := ResultCode(err); c == sqliteBusy || c == sqliteLocked {
		return busyError{what: what, err: err}
	}
	return err
}

// ErrDatabaseLocked is matched by the error of any query or write, read
// or write alike, on a database Open opened when the pool needed a new
// connection and none could open within the busy timeout
// (BusyTimeoutMillis, 10 s) because another program held the database
// file locked: a connection in PRAGMA locking_mode=EXCLUSIVE (a sqlite3
// shell or a script that read or wrote mnemo.db in that mode keeps it
// until it closes), which no connection of another process can open
// beside. It is Open's error too when the lock is held as it opens.
// Nothing was read or written through the connection; the error unwraps
// to SQLite's (ResultCode 5, SQLITE_BUSY). It does not match
// ErrWriteBusy: a read fails so as well, and no writer of this process
// is at fault. Once that program lets go, the same call succeeds.
var ErrDatabaseLocked = errors.New("another program holds the database file locked")

// lockedError is SQLite's SQLITE_BUSY or SQLITE_LOCKED at a connection's
// open (watchConnector.Connect), or at a read that no writer can block
// (VacuumInto's, in WAL mode): it matches ErrDatabaseLocked and unwraps
// to SQLite's error.
type lockedError struct {
	what string // "open a connection", "read"
	err  error
}

func (e lockedError) Error() string {
	return fmt.Sprintf("store: %s: %v (a connection in locking_mode EXCLUSIVE?) for the whole busy timeout: %v", e.what, ErrDatabaseLocked, e.err)
}

func (e lockedError) Is(target error) bool { return target == ErrDatabaseLocked }

func (e lockedError) Unwrap() error { return e.err }

// Locked returns err, of what ("open a connection", "read the schema
// version"), as a lockedError, matching ErrDatabaseLocked, when it is
// SQLite's SQLITE_BUSY or SQLITE_LOCKED (in any extended form): at a
// connection's open, at a read no writer can block, or on a handle opened
// outside Open (engine.CheckFile's read-only one); err itself otherwise.
func Locked(what string, err error) error {
	if c := ResultCode(err); c == sqliteBusy || c == sqliteLocked {
		return lockedError{what, err}
	}
	return err
}
