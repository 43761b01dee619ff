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
}

// NewStmts returns an empty statement cache over db, in db's dialect
// (DialectOf).
func NewStmts(db *sql.DB) *Stmts {
	return &Stmts{db: db, dialect: DialectOf(db), m: map[string]*sql.Stmt{}}
}

// Dialect returns the dialect of the cache's database.
func (c *Stmts) Dialect() Dialect { return c.dialect }

// Prepare returns the pool statement for query, preparing it on first use.
func (c *Stmts) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[query]; s != nil {
		return s, nil
	}
	s, err := c.db.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	c.m[query] = s
	return s, nil
}

// InTx returns query's cached statement bound to tx (closed with tx).
func (c *Stmts) InTx(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, s), nil
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
