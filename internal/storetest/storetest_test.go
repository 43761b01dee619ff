package storetest_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
)

// TestOpenDBWaitsForPrepares: the pool OpenDB opened is closed, when its
// test ends, only once the statements store.Stmts.InTx left preparing on it
// in the background are done, so none of them runs in a database the
// test's cleanup removes next. Postgres only: there the prepare can be held
// inside the server (behind a lock another session holds), which keeps it
// in flight while the cleanup runs; SQLite's case, a prepare waiting for a
// connection, is store's TestCloseDBWaitsForBackgroundPrepares. With
// db.Close as the cleanup the pool still had the prepare's connection open
// afterwards, and in the suites that prepare ran during Place's DROP
// SCHEMA: a deadlock, sometimes failing the test.
func TestOpenDBWaitsForPrepares(t *testing.T) {
	b := storetest.Backends[1]
	ctx := context.Background()
	place := b.Place(t)
	watch := b.OpenDB(t, place)
	lock, err := watch.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	var db *sql.DB
	var pid int
	t.Run(b.Name, func(t *testing.T) {
		db = b.OpenDB(t, place)
		db.SetMaxOpenConns(1)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		// tx holds the pool's only connection: the background prepare
		// waits for it. A lock queued behind tx's (its statement read
		// threads) then holds the prepare inside the server.
		if _, err := store.NewStmts(db).InTx(ctx, tx, `SELECT count(*) FROM threads`); err != nil {
			t.Fatal(err)
		}
		locked := make(chan error, 1)
		go func() {
			_, err := lock.ExecContext(ctx, `LOCK TABLE threads IN ACCESS EXCLUSIVE MODE`)
			locked <- err
		}()
		waitFor(t, watch, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock' AND relation = 'threads'::regclass)`)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := <-locked; err != nil {
			t.Fatal(err)
		}
		waitFor(t, watch, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND mode = 'AccessShareLock' AND relation = 'threads'::regclass)`)
		if err := watch.QueryRowContext(ctx, `SELECT pid FROM pg_locks WHERE NOT granted AND relation = 'threads'::regclass`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
	})
	if n := db.Stats().OpenConnections; n != 0 {
		t.Errorf("after the test's cleanup the pool has %d open connection(s): a background prepare outlived it", n)
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The prepare's session ends (its client gone, or done) before the
	// schema is dropped.
	waitFor(t, watch, `SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)`, pid)
}

// waitFor polls db until query (one boolean) is true; it fails t on an
// error. Only the test's timeout bounds the wait.
func waitFor(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	for {
		var ok bool
		if err := db.QueryRowContext(context.Background(), query, args...).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
