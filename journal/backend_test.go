package journal_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// backend is one database the journal's conformance suite runs on. Every
// test that touches the database runs once per backend (forEachBackend)
// with the same assertions: the journal must behave the same on SQLite and
// on Postgres.
type backend struct {
	name string
	// place returns the location of a new, empty database: a file under
	// t.TempDir() (SQLite), a DSN on a throwaway schema dropped when t ends
	// (Postgres; skips t when MNEMO_TEST_POSTGRES is unset).
	place func(t *testing.T) string
	// open opens (and migrates) the database at place; reopening a place
	// is a restart.
	open func(ctx context.Context, place string) (*sql.DB, error)
}

var backends = []backend{
	{
		name:  "sqlite",
		place: func(t *testing.T) string { return filepath.Join(t.TempDir(), "j.db") },
		open:  store.Open,
	},
	{
		name:  "postgres",
		place: func(t *testing.T) string { return pgtest.DSN(t) },
		open:  pgstore.OpenDB,
	},
}

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// openDB opens the database at place, closed when t ends.
func (b backend) openDB(t *testing.T, place string) *sql.DB {
	t.Helper()
	db, err := b.open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openJournal opens a journal on the database at place; closeDB closes
// its pool (a restart when place is opened again).
func (b backend) openJournal(t *testing.T, place string) (*journal.Journal, func()) {
	t.Helper()
	db, err := b.open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	return journal.New(db, nil), func() { db.Close() }
}

// openErase opens a journal and its pool on a new database for the
// erasure and dispatch tests.
func (b backend) openErase(t *testing.T) (*journal.Journal, *sql.DB) {
	t.Helper()
	db := b.openDB(t, b.place(t))
	return journal.New(db, nil), db
}

// inTx runs fn in one transaction of db (in db's dialect) and commits it.
func inTx(t *testing.T, db *sql.DB, fn func(tx *store.Tx) error) {
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
