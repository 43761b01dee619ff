package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
)

// OpenReadOnly opens the SQLite database at path for reading only (mode=ro):
// it never writes the file, never checkpoints or removes its -wal, and takes
// no lock but SQLite's own shared ones, so in WAL mode it reads beside a
// writer in another process (which it neither blocks nor waits for, but for
// busy_timeout on the WAL index). The pool holds one connection, so a
// statement sequence sees one snapshot only inside a transaction. The
// caller closes it.
func OpenReadOnly(path string) (*sql.DB, error) {
	return openReadOnlyBusy(path, BusyTimeoutMillis)
}

// openReadOnlyBusy is OpenReadOnly with the busy timeout given in
// milliseconds (the tests shorten it).
func openReadOnlyBusy(path string, busyMillis int) (*sql.DB, error) {
	dsn := fileDSN(path, url.Values{
		"mode":    {"ro"},
		"_pragma": {fmt.Sprintf("busy_timeout(%d)", busyMillis)},
	})
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s read-only: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// VacuumInto writes a copy of db into the file at path (VACUUM INTO): one
// read transaction, so the copy is the database as of one commit (in WAL
// mode: the last commit before the read began, WAL frames included), while
// writers go on. The copy is built afresh, table by table: it has no free
// page and no free space in a page, so bytes of deleted rows (in free pages,
// or in the WAL's older frames) do not travel. path must not exist or be an
// empty file (create it first for its mode: SQLite creates it with the
// process umask). SQLite does not sync the copy: the caller does. Ending
// ctx interrupts it (the file is then partial: remove it). A read, it does
// not wait for the write gate of a database Open returned (gate.go). In
// WAL mode no writer blocks it: SQLITE_BUSY is another program holding
// the file in locking_mode EXCLUSIVE, and matches ErrDatabaseLocked.
func VacuumInto(ctx context.Context, db *sql.DB, path string) error {
	if _, err := db.ExecContext(ungated(ctx), `VACUUM INTO ?`, path); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("store: vacuum into %s: %w", path, Locked("read", err))
	}
	return nil
}
