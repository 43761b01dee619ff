package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ClaimRun makes runID belong to threadID of resourceID, or checks that it
// does: the first claim of a run id wins and lasts (it outlives the run's
// records: retention and erasure keep the claim, erasure with an opaque
// owner). It returns ErrRunOwned when the run id belongs to another thread
// or resource; the error names neither.
//
// PutMemCtx claims the run it records; the engine claims a run before it
// applies a tool call in it.
func (j *Journal) ClaimRun(ctx context.Context, runID, threadID, resourceID string) error {
	if _, err := j.stmts.Exec(ctx, `INSERT INTO runs (id, thread_id, resource_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, runID, threadID, resourceID, j.now().UnixMilli()); err != nil {
		return fmt.Errorf("journal: claim run %s: %w", runID, err)
	}
	return j.CheckRun(ctx, runID, threadID, resourceID)
}

// CheckRun returns ErrRunOwned when runID was claimed by another thread or
// resource, and nil when it is threadID's or unclaimed. It writes nothing.
func (j *Journal) CheckRun(ctx context.Context, runID, threadID, resourceID string) error {
	var thread, resource string
	err := j.stmts.QueryRow(ctx, `SELECT thread_id, resource_id FROM runs WHERE id = ?`, runID).Scan(&thread, &resource)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("journal: read run %s: %w", runID, err)
	case thread != threadID || resource != resourceID:
		return fmt.Errorf("%w: %s", ErrRunOwned, runID)
	}
	return nil
}
