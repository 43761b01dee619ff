package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestCloseDBWaitsForBackgroundPrepares: CloseDB cancels the statements
// InTx left preparing on the pool and returns only once they are done, so
// no connection outlives it. Before, the engine closed its *sql.DB while
// such a prepare still held (or waited for) a connection; on SQLite the
// late close of that connection checkpointed the WAL into the database
// file after Close returned, healing a file the caller had truncated
// (cmd/mnemo's TestCheckTruncatedDatabase failed about 1 run in 15).
func TestCloseDBWaitsForBackgroundPrepares(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stmts := NewStmts(db)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// The pool's only connection is the transaction's: the background
	// prepare waits for it.
	if _, err := stmts.InTx(ctx, tx, `SELECT ? + 1`); err != nil {
		t.Fatal(err)
	}
	if err := CloseDB(db); err != nil {
		t.Fatal(err)
	}
	stmts.mu.Lock()
	pending := len(stmts.pending)
	stmts.mu.Unlock()
	if pending != 0 {
		t.Fatalf("%d background prepares still running after CloseDB", pending)
	}
}

// TestPrepareLoserBesideGate: a Prepare that lost the race to cache its
// statement never holds the cache's lock while the statement's connection
// is held by a writer waiting at the write gate. Before, it closed its
// statement under the lock, and sql.Stmt.Close waited for database/sql's
// lock of the connection, which the writer holds while it waits at the
// gate (BeginTx runs under it); the gate's holder, in InTx, waited for the
// cache's lock: nothing moved until the writer gave up after
// BusyTimeoutMillis with ErrWriteBusy (TestLoad/sqlite with the appends'
// group commit, gate58: every write queued behind failed so).
//
// The pool has two connections: X, the holder's write transaction, and Y.
// Caller A misses the cache and waits for a connection; another caller's
// statement is cached meanwhile; A prepares on Y, which writer B then takes
// for its BeginTx and waits at the gate holding it; A finds the other
// statement cached and closes its own; the holder prepares in InTx and
// commits. B must then get in.
func TestPrepareLoserBesideGate(t *testing.T) {
	ctx := context.Background()
	db := openGated(t, BusyTimeoutMillis)
	db.SetMaxOpenConns(2)
	stmts := NewStmts(db)
	const q = `SELECT count(*) FROM t WHERE n = ?`
	other, err := db.PrepareContext(ctx, q) // the statement another caller cached
	if err != nil {
		t.Fatal(err)
	}
	hold, err := db.BeginTx(ctx, nil) // X: the gate's holder
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	y, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waits := db.Stats().WaitCount
	type prepared struct {
		s   *sql.Stmt
		err error
	}
	a := make(chan prepared, 1)
	go func() {
		s, err := stmts.Prepare(ctx, q)
		a <- prepared{s, err}
	}()
	for db.Stats().WaitCount == waits { // A waits for a connection
		time.Sleep(time.Millisecond)
	}
	stmts.mu.Lock()
	stmts.m[q] = other
	y.Close() // A prepares on Y and gives it back, then waits for the lock
	b := make(chan error, 1)
	var btx *sql.Tx
	go func() {
		var err error
		btx, err = db.BeginTx(ctx, nil) // takes Y once A is done with it
		b <- err
	}()
	waitQueued(t, db, 1)
	stmts.mu.Unlock()
	// Until A has returned, or holds the lock (closing its statement).
	for free := true; free; {
		select {
		case got := <-a:
			a <- got
			free = false
		default:
			if free = stmts.mu.TryLock(); free {
				stmts.mu.Unlock()
				time.Sleep(time.Millisecond)
			}
		}
	}
	st, err := stmts.InTx(ctx, hold, q)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.QueryRowContext(ctx, 1).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-b; err != nil {
		t.Fatalf("the writer queued behind the holder: %v, want it in once the holder committed", err)
	}
	btx.Rollback()
	if got := <-a; got.err != nil || got.s != other {
		t.Fatalf("Prepare beside the cached statement: %v, %v; want the cached one", got.s, got.err)
	}
}
