package msgstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ErrNotFound reports that the row asked for is not stored.
var ErrNotFound = errors.New("msgstore: not found")

// ErrBadPrefix is returned by ReservedIDs for an empty prefix or one
// ending with the byte 0xff, whose range has no byte-order end.
var ErrBadPrefix = errors.New("msgstore: id prefix must be non-empty and end with a byte below 0xff")

// Store reads and writes the message tables of one database: SQLite
// (store.Open) or Postgres (pgstore.OpenDB).
type Store struct {
	db      *sql.DB
	conn    store.Conn // db, rebinding each statement on Postgres (store.Bound)
	dialect store.Dialect
	stmts   *store.Stmts
}

// New returns a Store over db (opened by store.Open or pgstore.OpenDB), in
// db's dialect (store.DialectOf). Closing db closes it.
func New(db *sql.DB) *Store {
	return &Store{db: db, conn: store.Bound(db), dialect: store.DialectOf(db), stmts: store.NewStmts(db)}
}

// Stmts returns the store's statement cache.
func (s *Store) Stmts() *store.Stmts { return s.stmts }

// Tx runs fn in one write transaction (store.RunTx).
func (s *Store) Tx(ctx context.Context, fn func(tx *store.Tx) error) error {
	return store.RunTx(ctx, s.db, fn)
}
