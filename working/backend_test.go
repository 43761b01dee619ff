package working_test

import (
	"database/sql"
	"testing"

	"github.com/mnemo-go/mnemo/internal/storetest"
)

// backend is one database working memory's conformance suite runs on.
// Every test that touches the database runs once per backend
// (forEachBackend) with the same assertions: working memory must behave
// the same on SQLite and on Postgres.
type backend struct{ storetest.Backend }

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) { test(t, backend{b}) })
}

// openDB opens a new, empty database, closed when t ends, and returns it
// with its place.
func (b backend) openDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	place := b.Place(t)
	return b.OpenDB(t, place), place
}

// openAgain opens another pool on the database at place (as another
// process would), closed when t ends.
func (b backend) openAgain(t *testing.T, place string) *sql.DB {
	t.Helper()
	return b.OpenDB(t, place)
}
