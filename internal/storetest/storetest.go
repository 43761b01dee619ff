package storetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// Backend is one database a conformance suite runs on.
type Backend struct {
	Name    string        // "sqlite" or "postgres": the subtest's name
	Dialect store.Dialect // the SQL dialect of the databases Open returns
	// Place returns the location of a new, empty database: a file under
	// t.TempDir() (SQLite), a DSN on a throwaway schema dropped when t ends
	// (Postgres; skips t when MNEMO_TEST_POSTGRES is unset).
	Place func(t *testing.T) string
	// Open opens (and migrates) the database at place; opening a place
	// again gives another pool on the same database (a restart, or another
	// process's pool).
	Open func(ctx context.Context, place string) (*sql.DB, error)
}

// Backends are SQLite and Postgres, in that order.
var Backends = []Backend{
	{
		Name:    "sqlite",
		Dialect: store.SQLite,
		Place:   sqlitePlace,
		Open:    store.Open,
	},
	{
		Name:    "postgres",
		Dialect: store.Postgres,
		Place:   func(t *testing.T) string { return pgtest.DSN(t) },
		Open:    pgstore.OpenDB,
	},
}

// sqlitePlace is mnemo.db in a new directory removed when t ends. Not
// t.TempDir: database/sql may still be closing a connection its opener
// goroutine made after db.Close returned, and SQLite then removes or
// creates the -wal and -shm files while TempDir's single RemoveAll walks
// the directory ("directory not empty", seen once in CI on
// TestConcurrentAppends). The removal is retried for up to 2 s.
func sqlitePlace(t *testing.T) string {
	dir, err := os.MkdirTemp("", "mnemo-storetest-")
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		for i := 0; ; i++ {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if i == 100 {
				t.Errorf("storetest: remove %s: %v", dir, err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	return filepath.Join(dir, "mnemo.db")
}

// ForEach runs test as a subtest per backend.
func ForEach(t *testing.T, test func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) { test(t, b) })
	}
}

// OpenDB opens the database at place, closed when t ends (store.CloseDB,
// as the engine closes its pool); an error fails t.
//
// Not db.Close: a statement that store.Stmts.InTx left preparing on the
// pool in the background would outlive it. On Postgres its connection
// then ran the prepare in the test's schema while Place's cleanup dropped
// the schema: the prepare (PendingDispatches' statement, which locks
// dispatches then messages) and DROP SCHEMA … CASCADE each held a table
// the other waited for, and when the server chose the DROP as the
// deadlock's victim the test failed ("pgtest: DROP SCHEMA …: deadlock
// detected": journal's TestDispatchTiesByteOrder/postgres, whose
// PendingDispatches left such a prepare).
func (b Backend) OpenDB(t *testing.T, place string) *sql.DB {
	t.Helper()
	db, err := b.Open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.CloseDB(db) })
	return db
}

// InTx runs fn in one transaction of db (in db's dialect) and commits it;
// an error fails t.
func InTx(t *testing.T, db *sql.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	tx, err := store.Begin(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Linguistic gives, on Postgres, each "table.column" of cols ICU's
// linguistic collation "und-x-icu" (a < B < C < é < f), where the test
// database's own, C.UTF-8, is byte order (B < C < a < f < é) and would let
// an ORDER BY without COLLATE "C" pass; it fails t unless the collation
// took. On SQLite it does nothing: text compares bytewise (BINARY).
func (b Backend) Linguistic(t *testing.T, conn store.Conn, cols ...string) {
	t.Helper()
	if b.Dialect != store.Postgres {
		return
	}
	ctx := context.Background()
	for _, c := range cols {
		table, col, _ := strings.Cut(c, ".")
		if _, err := conn.ExecContext(ctx, `ALTER TABLE `+table+` ALTER COLUMN `+col+` TYPE text COLLATE "und-x-icu"`); err != nil {
			t.Fatal(err)
		}
	}
	var lt bool
	if err := conn.QueryRowContext(ctx, `SELECT 'a' COLLATE "und-x-icu" < 'B' COLLATE "und-x-icu"`).Scan(&lt); err != nil || !lt {
		t.Fatalf(`"und-x-icu" does not order a before B (%v): this test could not fail`, err)
	}
}
