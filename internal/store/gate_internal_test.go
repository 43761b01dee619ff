package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	db := openGated(t, 20)
	runWriters(t, []*sql.DB{db}, 8, 30)
	if got := count(t, db); got != 8*30 {
		t.Errorf("%d rows, want %d", got, 8*30)
	}
}

// TestWriteGateSharedByFile: two handles Open returned on one file (the
// second through a symbolic link) share the file's gate, so their writers
// do not meet in SQLite's busy handler either: with a busy timeout of
// 20 ms, 4 writers on each handle write 30 times each without
// SQLITE_BUSY. Before, each handle had a gate of its own. The gate goes
// when the file's last handle is closed; another file has its own.
func TestWriteGateSharedByFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	a, err := openBusy(ctx, path, SchemaVersion, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDB(a)
	if _, err := a.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	b, err := openBusy(ctx, link, SchemaVersion, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDB(b)
	other := openGated(t, 20)
	if ga, gb := gateOf(a), gateOf(b); ga == nil || gb == nil || ga.fileGate != gb.fileGate {
		t.Fatal("two handles on one file have gates of their own, want the file's")
	}
	if gateOf(other).fileGate == gateOf(a).fileGate {
		t.Fatal("two files share a gate")
	}
	runWriters(t, []*sql.DB{a, b}, 8, 30)
	if got := count(t, a); got != 8*30 {
		t.Errorf("%d rows, want %d", got, 8*30)
	}
	shared := gateOf(a).fileGate
	CloseDB(a)
	c, err := openBusy(ctx, path, SchemaVersion, 20)
	if err != nil {
		t.Fatal(err)
	}
	if gateOf(c).fileGate != shared {
		t.Error("a handle opened while another is open has a gate of its own")
	}
	CloseDB(c)
	CloseDB(b)
	fileGates.mu.Lock()
	left := slices.Contains(fileGates.files, shared)
	fileGates.mu.Unlock()
	if left {
		t.Error("the file's gate is kept after its last handle was closed")
	}
}

// runWriters runs writers goroutines, each writing each times through
// dbs[i%len(dbs)] (holding a table t), mixing the kinds of write: a write
// transaction that holds SQLite's write lock for 5 ms (RunTx, Begin), an
// autocommit write (Exec on the pool), a cached statement's Exec (Stmts).
// Every error fails t.
func runWriters(t *testing.T, dbs []*sql.DB, writers, each int) {
	t.Helper()
	ctx := context.Background()
	writes := make([][]func(n int) error, len(dbs))
	for i, db := range dbs {
		writes[i] = gatedWrites(ctx, db)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			ws := writes[w%len(dbs)]
			for i := range each {
				if err := ws[(w+i)%len(ws)](w*each + i); err != nil {
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
}

// gatedWrites are the kinds of write through db that pass the gate, each
// inserting n into t.
func gatedWrites(ctx context.Context, db *sql.DB) []func(n int) error {
	stmts := NewStmts(db)
	return []func(n int) error{
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
