package journal_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
	"github.com/mnemo-go/mnemo/journal"
)

// backend is one database the journal's conformance suite runs on. Every
// test that touches the database runs once per backend (forEachBackend)
// with the same assertions: the journal must behave the same on SQLite and
// on Postgres.
type backend struct{ storetest.Backend }

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) { test(t, backend{b}) })
}

// openJournal opens a journal on the database at place; closeDB closes
// its pool (a restart when place is opened again) with store.CloseDB, which
// waits for the statements the journal prepares in the background (see
// storetest.Backend.OpenDB).
func (b backend) openJournal(t *testing.T, place string) (*journal.Journal, func()) {
	t.Helper()
	db, err := b.Open(context.Background(), place)
	if err != nil {
		t.Fatal(err)
	}
	return journal.New(db, nil), func() { store.CloseDB(db) }
}

// openErase opens a journal and its pool on a new database for the
// erasure and dispatch tests.
func (b backend) openErase(t *testing.T) (*journal.Journal, *sql.DB) {
	t.Helper()
	db := b.OpenDB(t, b.Place(t))
	return journal.New(db, nil), db
}

// inTx runs fn in one transaction of db (in db's dialect) and commits it.
func inTx(t *testing.T, db *sql.DB, fn func(tx *store.Tx) error) {
	t.Helper()
	storetest.InTx(t, db, fn)
}
