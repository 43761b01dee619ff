package observe_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// backend is one database observe's conformance suite runs on. Every
// test that touches the database runs once per backend (forEachBackend)
// with the same assertions: the observer must behave the same on SQLite
// and on Postgres.
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
