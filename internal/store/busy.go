package store

import "fmt"

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
// SQLite's SQLITE_BUSY or SQLITE_LOCKED (in any extended form).
func writeBusy(what string, err error) error {
	if c := ResultCode(err); c == sqliteBusy || c == sqliteLocked {
		return busyError{what: what, err: err}
	}
	return err
}
