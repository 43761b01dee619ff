package store

import (
	"context"
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
