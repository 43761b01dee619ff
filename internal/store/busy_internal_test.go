package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
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
