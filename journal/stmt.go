package journal

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache holds the journal's fixed statements, prepared once on the pool
// and reused (database/sql keeps each prepared per connection): the SQLite
// driver otherwise prepares the SQL afresh on every call, which was a
// visible part of every LoadContext's memctx write and run-id check
// (BENCHMARKS.md). The statements are finalized when the pool is closed.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// queryRow runs a fixed query through its cached statement; a prepare
// error is reported by the Row's Scan.
func (j *Journal) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := j.stmt(ctx, query)
	if err != nil {
		return j.db.QueryRowContext(ctx, query, args...) // reports the same error on Scan
	}
	return s.QueryRowContext(ctx, args...)
}

// exec runs a fixed statement through its cached statement.
func (j *Journal) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := j.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (j *Journal) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	j.stmts.mu.Lock()
	defer j.stmts.mu.Unlock()
	if s := j.stmts.m[query]; s != nil {
		return s, nil
	}
	s, err := j.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if j.stmts.m == nil {
		j.stmts.m = map[string]*sql.Stmt{}
	}
	j.stmts.m[query] = s
	return s, nil
}
