package msgstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
)

// backend is one database the message store's tests run on. Every test
// that touches the database runs once per backend (forEachBackend) with
// the same assertions: the store must behave the same on SQLite and on
// Postgres.
type backend struct{ storetest.Backend }

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) { test(t, backend{b}) })
}

// openStore opens a store on a new, empty database, with the database
// itself rebound to the backend's placeholders (store.Bound) for the
// tests' own set-up statements.
func (b backend) openStore(t *testing.T) (*msgstore.Store, *sql.DB, store.Conn) {
	t.Helper()
	db := b.OpenDB(t, b.Place(t))
	return msgstore.New(db), db, store.Bound(db)
}

// text is sqlite on SQLite and postgres on Postgres: set-up SQL whose
// words differ (blob literals where Postgres stores a vector).
func (b backend) text(sqlite, postgres string) string { return b.Dialect.Text(sqlite, postgres) }

// setupTx is a transaction for a test's set-up statements, rebound to its
// backend's placeholders (store.Bound): fixtures of thousands of rows
// inserted in one transaction commit once instead of waiting for the
// disk (SQLite's fsync) at every statement.
type setupTx struct {
	store.Conn
	tx *store.Tx
}

// fixtureTx begins a setupTx on db; the test commits it (commit) before
// it reads what was inserted. It is rolled back if the test ends first.
func fixtureTx(t *testing.T, db *sql.DB) *setupTx {
	t.Helper()
	tx, err := store.Begin(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	return &setupTx{Conn: store.Bound(tx), tx: tx}
}

// commit commits the set-up statements.
func (s *setupTx) commit(t *testing.T) {
	t.Helper()
	if err := s.tx.Commit(); err != nil {
		t.Fatalf("commit the fixture: %v", err)
	}
}
