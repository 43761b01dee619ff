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
// the memctx record of runID, read through q, is marked by an erasure since
// (MemCtx.ContextErased: the erasure removed a turn the run's context held,
// listed in the record or not). The mark is a field of its own: a turn
// whose text reads ErasedPreview does not refuse. A run with no record, or
// an unreadable one, passes: nothing says what it saw. Erasure marks the
// records in its own transaction (ScrubMemCtx), so a caller that calls
// this inside its write transaction sees either the marked record or
// writes before the erasure, whose working-memory rebuild then finds the
// version.
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
	var rec struct {
		ContextErased bool `json:"contextErased"`
	}
	if json.Unmarshal(raw, &rec) != nil || !rec.ContextErased {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRunContextErased, runID)
}
