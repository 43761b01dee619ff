package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Stmts holds statements prepared once on a pool. database/sql keeps each
// one prepared per connection, so a statement used through Stmts is parsed
// by SQLite once per connection instead of on every call: the modernc driver
// prepares a statement afresh for every ExecContext/QueryContext given a
// query string, which cost ~25 % of an Append and a visible part of every
// memctx write in the CPU profiles (BENCHMARKS.md).
//
// Use it for fixed SQL only: a query whose text varies (an IN list of n
// placeholders) would fill the cache with one statement per n; see InChunks.
// The statements are finalized when the pool is closed (DB.Close closes each
// connection's statements). A Stmts is safe for concurrent use.
//
// Queries are written in SQLite's text (? placeholders) and keyed by it; on
// Postgres the text is rebound (Dialect.Rebind) once, when the statement is
// prepared, so a cached statement costs nothing more per call on either
// backend.
type Stmts struct {
	db      *sql.DB
	dialect Dialect
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool // prepared on the pool in the background (InTx)
}

// NewStmts returns an empty statement cache over db, in db's dialect
// (DialectOf).
func NewStmts(db *sql.DB) *Stmts {
	return &Stmts{db: db, dialect: DialectOf(db), m: map[string]*sql.Stmt{}, pending: map[string]bool{}}
}

// Dialect returns the dialect of the cache's database.
func (c *Stmts) Dialect() Dialect { return c.dialect }

// Prepare returns the pool statement for query, preparing it on first use.
// Preparing takes a connection of the pool; the cache's lock is not held
// meanwhile, so that a caller waiting for a connection never blocks
// another's cache hit.
func (c *Stmts) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if s := c.cached(query); s != nil {
		return s, nil
	}
	s, err := c.db.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if won := c.m[query]; won != nil {
		s.Close() // another caller prepared it meanwhile
		return won, nil
	}
	c.m[query] = s
	return s, nil
}

// cached returns query's pool statement, nil when not prepared yet.
func (c *Stmts) cached(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

// InTx returns query's statement on tx's connection (closed with tx): the
// cached pool statement bound to tx once it is prepared.
//
// Until then, the statement is prepared on tx's own connection for this
// call, and on the pool in the background for the next calls. Preparing it
// on the pool from here would wait for a second connection while tx holds
// one, which deadlocks when every other connection of the pool belongs to
// a transaction waiting for a lock tx holds: on Postgres, a burst of
// appends to one thread, each queued on the thread's advisory lock, as
// soon as they outnumber the pool's connections.
func (c *Stmts) InTx(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if s := c.cached(query); s != nil {
		return tx.StmtContext(ctx, s), nil
	}
	c.prepareLater(query)
	s, err := tx.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return s, nil
}

// prepareLater prepares query on the pool in a goroutine of its own (once
// at a time per query), which waits for a free connection; an error (the
// pool closed meanwhile) leaves it to the next InTx.
func (c *Stmts) prepareLater(query string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[query] {
		return
	}
	c.pending[query] = true
	go func() {
		_, _ = c.Prepare(context.Background(), query)
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.pending, query)
	}()
}

// Query runs a fixed query through its cached statement.
func (c *Stmts) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// QueryRow is QueryRowContext through query's cached statement; a prepare
// error is reported by the Row's Scan.
func (c *Stmts) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return c.db.QueryRowContext(ctx, c.dialect.Rebind(query), args...) // reports the same error on Scan
	}
	return s.QueryRowContext(ctx, args...)
}

// Exec runs a fixed statement through its cached statement.
func (c *Stmts) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}
