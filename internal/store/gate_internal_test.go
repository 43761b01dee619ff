package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// openGated opens a fresh database with a busy timeout of busyMillis and a
// table t (n INTEGER), and closes it at the end of the test.
func openGated(t *testing.T, busyMillis int) *sql.DB {
	t.Helper()
	db, err := openBusy(context.Background(), filepath.Join(t.TempDir(), "m.db"), SchemaVersion, busyMillis)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { CloseDB(db) })
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// waitQueued waits until n writers are queued at db's gate (at most 10 s).
func waitQueued(t *testing.T, db *sql.DB, n int32) {
	t.Helper()
	g := gateOf(db)
	if g == nil {
		t.Fatal("the database has no write gate")
	}
	for deadline := time.Now().Add(10 * time.Second); g.waiting.Load() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d writers queued at the write gate, want %d", g.waiting.Load(), n)
		}
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWriteGateNoBusy: writers of one process never meet SQLite's busy
// timeout against each other (rev43 F3: an Append failed with "database
// is locked" after 10 s at load 20). With a busy timeout of 20 ms, 8
// goroutines write 30 times each, mixing the kinds of write: a write
// transaction that holds SQLite's write lock for 5 ms (RunTx, Begin), an
// autocommit write (Exec on the pool), a cached statement's Exec (Stmts).
// Without the gate, one of them waits past 20 ms and fails with
// SQLITE_BUSY.
func TestWriteGateNoBusy(t *testing.T) {
	ctx := context.Background()
	db := openGated(t, 20)
	stmts := NewStmts(db)
	writes := []func(n int) error{
		func(n int) error {
			return RunTx(ctx, db, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?)`, n)
				time.Sleep(5 * time.Millisecond)
				return err
			})
		},
		func(n int) error { _, err := db.ExecContext(ctx, `INSERT INTO t VALUES (?)`, n); return err },
		func(n int) error { _, err := stmts.Exec(ctx, `INSERT INTO t VALUES (?)`, n); return err },
		func(n int) error {
			tx, err := Begin(ctx, db, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?)`, n); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond)
			return tx.Commit()
		},
	}
	const writers, each = 8, 30
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := writes[(w+i)%len(writes)](w*each + i); err != nil {
					errs <- fmt.Errorf("writer %d, write %d: %w", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := count(t, db); got != writers*each {
		t.Errorf("%d rows, want %d", got, writers*each)
	}
}

// TestWriteGateFIFO: writers are let in in the order they came.
func TestWriteGateFIFO(t *testing.T) {
	ctx := context.Background()
	db := openGated(t, BusyTimeoutMillis)
	hold, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := RunTx(ctx, db, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?)`, i)
				return err
			}); err != nil {
				t.Error(err)
			}
		})
		waitQueued(t, db, int32(i+1))
	}
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	rows, err := db.Query(`SELECT n FROM t ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if fmt.Sprint(got) != "[0 1 2 3 4]" {
		t.Errorf("writers ran in the order %v, want [0 1 2 3 4]", got)
	}
}

// TestWriteGateCancel: a writer waiting at the gate returns ctx's error,
// naming what waited, when its context ends; it wrote nothing and left
// nothing held (the next writer goes in).
func TestWriteGateCancel(t *testing.T) {
	db := openGated(t, BusyTimeoutMillis)
	waiters := []struct {
		name, what string
		write      func(ctx context.Context) error
	}{
		{"RunTx", "begin a write transaction", func(ctx context.Context) error {
			return RunTx(ctx, db, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (1)`)
				return err
			})
		}},
		{"Exec", "write", func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, `INSERT INTO t VALUES (1)`)
			return err
		}},
		{"Checkpoint", "checkpoint", func(ctx context.Context) error {
			_, _, _, err := Checkpoint(ctx, db)
			return err
		}},
	}
	for _, w := range waiters {
		t.Run(w.name, func(t *testing.T) {
			hold, err := db.BeginTx(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer hold.Rollback()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- w.write(ctx) }()
			waitQueued(t, db, 1)
			cancel()
			err = <-done
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), w.what+": waiting for this process's other writers") {
				t.Fatalf("got %v, want context.Canceled while waiting to %s", err, w.what)
			}
			if err := hold.Rollback(); err != nil {
				t.Fatal(err)
			}
			if n := count(t, db); n != 0 {
				t.Fatalf("%d rows after the cancelled write, want 0", n)
			}
			if _, err := db.Exec(`INSERT INTO t VALUES (2)`); err != nil { // the gate is free
				t.Fatal(err)
			}
			if _, err := db.Exec(`DELETE FROM t`); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriteGateReadsPass: reads do not wait for the gate a writer holds:
// a query, a read-only transaction, VacuumInto (each bounded by a
// context of 10 s, which a wait for the gate would use up).
func TestWriteGateReadsPass(t *testing.T) {
	db := openGated(t, BusyTimeoutMillis)
	hold, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.Exec(`INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatalf("query: %v", err)
	}
	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only transaction: %v", err)
	}
	if err := ro.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatalf("read-only transaction: %v", err)
	}
	if _, err := ro.ExecContext(ctx, `SELECT 1`); err != nil {
		t.Fatalf("read-only transaction's exec: %v", err)
	}
	ro.Rollback()
	if err := VacuumInto(ctx, db, filepath.Join(t.TempDir(), "copy.db")); err != nil {
		t.Fatalf("vacuum into: %v", err)
	}
}

// TestWriteGateBounded: a writer behind a write transaction left open
// waits at the gate no longer than the gate's bound (BusyTimeoutMillis;
// 50 ms here), with a context that never ends, and gets ErrWriteBusy
// naming what waited; it wrote nothing, and the gate is free once the
// transaction ends. Before the bound it waited until its context ended:
// for ever with context.Background.
func TestWriteGateBounded(t *testing.T) {
	db := openGated(t, BusyTimeoutMillis)
	gateOf(db).longest = 50 * time.Millisecond
	hold, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	done := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(context.Background(), `INSERT INTO t VALUES (1)`)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("a write behind an open write transaction still waits after a minute")
	}
	if !errors.Is(err, ErrWriteBusy) || !strings.Contains(err.Error(), "write: waited 50ms for this process's other writers") {
		t.Fatalf("got %v, want ErrWriteBusy after waiting 50ms to write", err)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db); n != 0 {
		t.Fatalf("%d rows after the refused write, want 0", n)
	}
	if _, err := db.Exec(`INSERT INTO t VALUES (2)`); err != nil { // the gate is free
		t.Fatal(err)
	}
}
