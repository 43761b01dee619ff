package msgstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// backend is one database the message store's tests run on. Every test
// that touches the database runs once per backend (forEachBackend) with
// the same assertions: the store must behave the same on SQLite and on
// Postgres.
type backend struct {
	name    string
	dialect store.Dialect
	// place returns the location of a new, empty database: a file under
	// t.TempDir() (SQLite), a DSN on a throwaway schema dropped when t ends
	// (Postgres; skips t when MNEMO_TEST_POSTGRES is unset).
	place func(t *testing.T) string
	// open opens (and migrates) the database at place.
	open func(ctx context.Context, place string) (*sql.DB, error)
}

var backends = []backend{
	{
		name:    "sqlite",
		dialect: store.SQLite,
		place:   func(t *testing.T) string { return filepath.Join(t.TempDir(), "m.db") },
		open:    store.Open,
	},
	{
		name:    "postgres",
		dialect: store.Postgres,
		place:   func(t *testing.T) string { return pgtest.DSN(t) },
		open:    pgstore.OpenDB,
	},
}

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
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

// openStore opens a store on a new, empty database, with the database
// itself rebound to the backend's placeholders (store.Bound) for the
// tests' own set-up statements.
func (b backend) openStore(t *testing.T) (*msgstore.Store, *sql.DB, store.Conn) {
	t.Helper()
	db := b.openDB(t, b.place(t))
	return msgstore.New(db), db, store.Bound(db)
}

// text is sqlite on SQLite and postgres on Postgres: set-up SQL whose
// words differ (blob literals where Postgres stores a vector).
func (b backend) text(sqlite, postgres string) string { return b.dialect.Text(sqlite, postgres) }
