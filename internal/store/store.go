package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeoutMillis is how long a connection waits for a lock held by another
// writer before SQLite reports SQLITE_BUSY. The writers of one process on a
// database file Open opened queue in its write gate first (gate.go),
// through whichever of its handles they write, and never wait so for each
// other: the timeout bounds the wait for another process (a backup's
// read) and for a connection Open did not make.
const BusyTimeoutMillis = 10000

// Open opens or creates the SQLite database at path, applies pending
// migrations and returns the pool. The caller closes it.
//
// Open refuses a database whose schema version is newer than SchemaVersion
// with ErrSchemaTooNew, without writing to it. A file that is not a SQLite
// database is reported with the path and SQLite's message; nothing is written.
// A write-ahead log (path + "-wal") that is not a regular file is refused
// with *WALNotFileError before SQLite opens anything.
func Open(ctx context.Context, path string) (*sql.DB, error) {
	return OpenAt(ctx, path, SchemaVersion)
}

// OpenAt is Open migrating only up to schema version (1..SchemaVersion):
// the salvage writes a database at the version of the one it reads, copies
// its rows, then migrates the rest of the way (internal/salvage). A file
// already past version is left as it is (newer than SchemaVersion:
// ErrSchemaTooNew).
func OpenAt(ctx context.Context, path string, version int) (*sql.DB, error) {
	return openBusy(ctx, path, version, BusyTimeoutMillis)
}

// openBusy is OpenAt with the busy timeout given in milliseconds (the tests
// shorten it).
func openBusy(ctx context.Context, path string, version, busyMillis int) (*sql.DB, error) {
	if version < 1 || version > SchemaVersion {
		return nil, fmt.Errorf("store: open %s: no schema version %d (1..%d)", path, version, SchemaVersion)
	}
	if err := touch(path); err != nil {
		return nil, err
	}
	if err := WALNotFile(path); err != nil { // walkind.go
		return nil, err
	}
	walDamage, err := guardWAL(path) // walguard.go
	if err != nil {
		return nil, err
	}
	dsn := fileDSN(path, url.Values{
		"_pragma": {
			fmt.Sprintf("busy_timeout(%d)", busyMillis),
			"foreign_keys(1)",
			// Erasure is physical: deleted content is overwritten with
			// zeros, not left in free pages (engine/erase.go).
			"secure_delete(1)",
			"journal_mode(WAL)",
			"synchronous(NORMAL)",
		},
		"_txlock": {"immediate"},
		// touch made the file: every connection of the pool opens it
		// without create, so one opened after mnemo.db was removed fails
		// (SQLITE_CANTOPEN) instead of creating a new, empty database
		// (umask's 0644) beside the old WAL, which was then reported
		// damaged (walk43 F3).
		"mode": {"rw"},
	})
	db, err := openWatched(dsn, path, walDamage) // damage.go
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := migrate(ctx, db, version); err != nil {
		CloseDB(db)
		if errors.Is(err, ErrSchemaTooNew) {
			return nil, fmt.Errorf("%w: %s", err, path)
		}
		if errors.Is(err, ErrNoSchema) {
			return nil, err // the caller names path
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		chmodRegular(path+suffix, 0o600) // best effort: they exist once WAL is on
	}
	lookNow(db) // replaced.go
	return db, nil
}

// fileDSN is the modernc.org/sqlite data source name of the database file
// at path with the query q: file:<path, URL-escaped>?<q encoded>.
func fileDSN(path string, q url.Values) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// touch creates path with mode 0600 when it does not exist, so SQLite never
// creates it with the process umask. An existing file keeps its contents.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	var pe *os.PathError
	if errors.As(err, &pe) { // it names path: once ("create F: open F: …" before)
		return fmt.Errorf("store: %w", &os.PathError{Op: "create", Path: pe.Path, Err: pe.Err})
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	return f.Close()
}

// foreignSchema returns ErrNoSchema when db, at schema version v above 0,
// has no threads table (mnemo's first migration creates it with the
// version): its tables were dropped, and no migration would create them
// again. A database at version 0 is migrated (store's tests write their
// own tables into one); engine.Open refuses another program's database
// from its file header first.
func foreignSchema(ctx context.Context, db *sql.DB, v int) error {
	if v == 0 {
		return nil
	}
	var threads int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'threads'`).Scan(&threads)
	switch {
	case err != nil:
		return fmt.Errorf("read schema: %w", err)
	case threads == 0:
		return fmt.Errorf("%w: schema version %d without its threads table (dropped?)", ErrNoSchema, v)
	}
	return nil
}

// migrate brings db to version (at most SchemaVersion), one transaction
// per step.
func migrate(ctx context.Context, db *sql.DB, version int) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (file version %d, this build %d)", ErrSchemaTooNew, v, SchemaVersion)
	}
	if err := foreignSchema(ctx, db, v); err != nil {
		return err
	}
	for ; v < version; v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		// Read the version again inside the write lock: another process may
		// have migrated meanwhile.
		var cur int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if cur > v {
			tx.Rollback()
			v = cur - 1
			continue
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
	}
	return nil
}
