package tools_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// backend is one database the tools' tests run on. Every test that
// touches the database runs once per backend (forEachBackend) with the
// same assertions: tool handling (the journal's applications, working
// memory's versions, observation search) must behave the same on SQLite
// and on Postgres.
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
