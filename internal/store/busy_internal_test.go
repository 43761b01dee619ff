package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteBusyOtherProcess: ba303622. While a connection outside the
// write gate (database/sql with modernc's driver, as a sqlite3 shell of
// another process would be) holds BEGIN IMMEDIATE on the file, a write
// through Open's handle waits the busy timeout (here 100 ms) in SQLite and
// fails with SQLITE_BUSY: the error matches ErrWriteBusy, as a wait at the
// gate does, and still unwraps to SQLite's error (ResultCode 5), for a
// write transaction (RunTx, sql.DB.BeginTx), an autocommit write (Exec)
// and a prepared statement's Exec. It was a 500 internal. Reads answer;
// the write succeeds once the lock is released.
func TestWriteBusyOtherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := openBusy(ctx, path, SchemaVersion, 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { CloseDB(db) })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	ins, err := db.Prepare(`INSERT INTO t VALUES (3)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	for what, write := range map[string]func() error{
		"RunTx": func() error {
			return RunTx(ctx, db, func(tx *Tx) error { _, err := tx.Exec(`INSERT INTO t VALUES (1)`); return err })
		},
		"Exec":      func() error { _, err := db.Exec(`INSERT INTO t VALUES (2)`); return err },
		"Stmt.Exec": func() error { _, err := ins.Exec(); return err },
	} {
		err := write()
		if !errors.Is(err, ErrWriteBusy) || ResultCode(err) != 5 {
			t.Errorf("%s behind another connection's BEGIN IMMEDIATE: %v, want ErrWriteBusy with SQLITE_BUSY", what, err)
		}
	}
	if n := count(t, db); n != 0 {
		t.Errorf("%d rows, want 0 (nothing written)", n)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO t VALUES (2)`); err != nil {
		t.Errorf("write once the lock is released: %v", err)
	}
}

// TestCheckpointBusyOtherProcess: gate51 (cbbde78d mapped the writes, not
// Checkpoint). Behind a connection outside the write gate, as another
// process's would be, Checkpoint (the erasure's truncating checkpoint)
// either reports the lock in busy, with no error (a write transaction
// held: SQLite's checkpoint goes on passively and says SQLITE_BUSY in its
// row), or, when the other connection holds the file in locking_mode
// EXCLUSIVE and no connection of the pool can open, fails with
// SQLITE_BUSY matching ErrDatabaseLocked (lock53: ErrWriteBusy before,
// as a write's busy; it was a bare "database is locked (5)").
func TestCheckpointBusyOtherProcess(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		lock  []string // run by the other connection
		idle  int      // the pool's idle connections while it holds the lock
		busy  int      // Checkpoint's busy
		error error    // Checkpoint's error matches it, with SQLITE_BUSY (nil: no error)
	}{
		{name: "WriteTransaction", lock: []string{`BEGIN IMMEDIATE`}, idle: 2, busy: 1},
		{name: "ExclusiveLockingMode", lock: lockExclusive, idle: 0, error: ErrDatabaseLocked},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			db, err := openBusy(ctx, path, SchemaVersion, 100)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { CloseDB(db) })
			if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
				t.Fatal(err)
			}
			db.SetMaxIdleConns(c.idle) // 0: the pool's connections close, and none opens behind the exclusive lock
			other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			conn, err := other.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, q := range c.lock {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			busy, _, _, err := Checkpoint(ctx, db)
			if (c.error == nil) != (err == nil) || c.error != nil && (!errors.Is(err, c.error) || ResultCode(err) != 5) || busy != c.busy {
				t.Errorf("Checkpoint: busy %d, %v; want busy %d, error matching %v with SQLITE_BUSY", busy, err, c.busy, c.error)
			}
		})
	}
}

// lockExclusive, run by a connection, holds the database file as a
// sqlite3 shell of another process does after `PRAGMA
// locking_mode=EXCLUSIVE;` and a write: until it closes, no other
// connection opens (its open's first read waits the busy timeout and
// fails with SQLITE_BUSY). The file has a table t (n INTEGER).
var lockExclusive = []string{`PRAGMA locking_mode=EXCLUSIVE`, `INSERT INTO t VALUES (5)`}

// holdExclusive runs lockExclusive on a connection of its own to the
// database at path (outside Open's gate, as another process's), and
// returns its release, which closes it (also at the test's end).
func holdExclusive(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	other.SetMaxOpenConns(1)
	for _, q := range lockExclusive {
		if _, err := other.ExecContext(ctx, q); err != nil {
			other.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	var once sync.Once
	release = func() { once.Do(func() { other.Close() }) }
	t.Cleanup(release)
	return release
}

// TestDatabaseLockedOtherProcess: lock53 (gate51 left it). While a
// connection outside Open's gate, as another process's sqlite3 shell,
// holds the file in locking_mode EXCLUSIVE, a call that needs a new
// connection of the pool waits the busy timeout (here 100 ms) for its
// open and fails with an error matching ErrDatabaseLocked, with SQLite's
// SQLITE_BUSY (ResultCode 5), a read as a write (and a backup's VACUUM
// INTO through a read-only handle, whose open reads nothing, at its
// statement): none matches
// ErrWriteBusy, which says this process's writers held the lock. Open
// itself fails so. It was a bare "database is locked (5)". Once the
// other connection closes, they succeed.
func TestDatabaseLockedOtherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := openBusy(ctx, path, SchemaVersion, 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { CloseDB(db) })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(0) // the pool's connections close: each call opens one
	release := holdExclusive(t, path)
	calls := []struct {
		name string
		call func() error
	}{
		{"Query", func() error { _, err := db.QueryContext(ctx, `SELECT n FROM t`); return err }},
		{"QueryRow", func() error { return db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(new(int)) }},
		{"Exec", func() error { _, err := db.ExecContext(ctx, `INSERT INTO t VALUES (1)`); return err }},
		{"RunTx", func() error {
			return RunTx(ctx, db, func(tx *Tx) error { _, err := tx.Exec(`INSERT INTO t VALUES (2)`); return err })
		}},
		{"ReadTx", func() error {
			tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err == nil {
				tx.Rollback()
			}
			return err
		}},
		{"VacuumInto", func() error {
			ro, err := openReadOnlyBusy(path, 100)
			if err != nil {
				return err
			}
			defer ro.Close()
			return VacuumInto(ctx, ro, filepath.Join(t.TempDir(), "copy.db"))
		}},
		{"Open", func() error {
			db, err := openBusy(ctx, path, SchemaVersion, 100)
			if err == nil {
				CloseDB(db)
			}
			return err
		}},
	}
	for _, c := range calls {
		err := c.call()
		if !errors.Is(err, ErrDatabaseLocked) || errors.Is(err, ErrWriteBusy) || ResultCode(err) != 5 {
			t.Errorf("%s behind another connection's exclusive lock: %v; want ErrDatabaseLocked (not ErrWriteBusy) with SQLITE_BUSY", c.name, err)
		}
	}
	release()
	for _, c := range calls {
		if err := c.call(); err != nil {
			t.Errorf("%s once the other connection closed: %v", c.name, err)
		}
	}
}
