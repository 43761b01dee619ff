package engine

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmtCache holds statements prepared once on the pool. database/sql keeps
// each one prepared per connection, so a statement used through
// tx.StmtContext or Stmt.QueryContext is parsed by SQLite once per
// connection instead of on every call: the modernc driver prepares a
// statement afresh for every ExecContext/QueryContext given a query string,
// which cost ~25 % of an Append in the CPU profile (BENCHMARKS.md).
//
// The statements are finalized when the pool is closed (DB.Close closes
// each connection's statements).
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns the pool statement for query, preparing it on first use.
func (e *Engine) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	e.stmts.mu.Lock()
	defer e.stmts.mu.Unlock()
	if s := e.stmts.m[query]; s != nil {
		return s, nil
	}
	s, err := e.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("engine: prepare: %w", err)
	}
	if e.stmts.m == nil {
		e.stmts.m = map[string]*sql.Stmt{}
	}
	e.stmts.m[query] = s
	return s, nil
}

// txStmt returns query's cached statement bound to tx (closed with tx).
func (e *Engine) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s, err := e.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, s), nil
}

// cachedQuery runs a fixed query (no variable IN list) through its cached
// statement.
func (e *Engine) cachedQuery(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := e.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// cachedQueryRow is QueryRowContext through query's cached statement; a
// prepare error is reported by the Row's Scan.
func (e *Engine) cachedQueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := e.stmt(ctx, query)
	if err != nil {
		return e.db.QueryRowContext(ctx, query, args...) // reports the same error on Scan
	}
	return s.QueryRowContext(ctx, args...)
}
