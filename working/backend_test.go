package working_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// backend is one database working memory's conformance suite runs on.
// Every test that touches the database runs once per backend
// (forEachBackend) with the same assertions: working memory must behave
// the same on SQLite and on Postgres.
type backend struct {
	name string
	// place returns the location of a new, empty database: a file under
	// t.TempDir() (SQLite), a DSN on a throwaway schema dropped when t ends
	// (Postgres; skips t when MNEMO_TEST_POSTGRES is unset).
	place func(t *testing.T) string
	// open opens (and migrates) the database at place; opening a place
	// again gives another pool on the same database (another process's).
	open func(ctx context.Context, place string) (*sql.DB, error)
}

var backends = []backend{
	{
		name:  "sqlite",
		place: func(t *testing.T) string { return filepath.Join(t.TempDir(), "mnemo.db") },
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

// openDB opens a new, empty database, closed when t ends, and returns it
// with its place.
func (b backend) openDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	place := b.place(t)
	db, err := b.open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, place
}

// openAgain opens another pool on the database at place (as another
// process would), closed when t ends.
func (b backend) openAgain(t *testing.T, place string) *sql.DB {
	t.Helper()
	db, err := b.open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
