package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// RowQuerier is what CheckRunContext reads through: a transaction whose
// statements are given in SQLite's text (? placeholders) and rebound for
// Postgres by the caller (store.Bound), as working.Querier.
type RowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// CheckRunContext returns ErrRunContextErased (wrapped, naming runID) when
// the memctx record of runID, read through q, holds a turn an erasure
// removed since: a recent or recalled reference whose preview the erasure
// scrubbed (ErasedPreview), or a query it scrubbed for quoting one. A run
// with no record, or an unreadable one, passes: nothing says what it saw.
// Erasure scrubs the records in its own transaction (ScrubMemCtx), so a
// caller that calls this inside its write transaction sees either the
// scrubbed record or writes before the erasure, whose working-memory
// rebuild then finds the version.
//
// For mnemo's own packages: q is the write's transaction.
func CheckRunContext(ctx context.Context, q RowQuerier, runID string) error {
	var raw []byte
	err := q.QueryRowContext(ctx, `SELECT output FROM journal WHERE scope = ? AND key = ?`, ScopeMemCtx, MemCtxKey(runID)).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: read memctx of run %s: %w", runID, err)
	}
	var rec MemCtx
	if json.Unmarshal(raw, &rec) != nil {
		return nil
	}
	if rec.Query == ErasedPreview {
		return fmt.Errorf("%w: %s", ErrRunContextErased, runID)
	}
	for _, list := range [][]Ref{rec.Recent, rec.Recalled} {
		for _, r := range list {
			if r.Preview == ErasedPreview {
				return fmt.Errorf("%w: %s", ErrRunContextErased, runID)
			}
		}
	}
	return nil
}
