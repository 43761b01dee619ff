package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Querier is what ThreadOwner reads through: a *sql.DB or the caller's
// *store.Tx (when the owner must be read in its transaction), which carry
// their dialect. A bare *sql.Tx is taken for SQLite.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ThreadOwner returns the resource that owns threadID, read through q; a
// thread that is not stored is ErrNotFound (wrapped).
func ThreadOwner(ctx context.Context, q Querier, threadID string) (string, error) {
	var owner string
	if c, ok := q.(store.Conn); ok {
		q = store.Bound(c)
	}
	err := q.QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, threadID).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: thread %q", ErrNotFound, threadID)
	}
	if err != nil {
		return "", fmt.Errorf("read owner of thread %s: %w", threadID, err)
	}
	return owner, nil
}
