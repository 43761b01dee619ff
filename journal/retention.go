package journal

import (
	"context"
	"fmt"
	"time"
)

// Retention bounds how many memctx records are kept per thread. The zero
// value keeps every run (the default).
type Retention struct {
	// KeepRuns keeps the newest KeepRuns runs of each thread; 0 means no
	// limit by count.
	KeepRuns int
	// MaxAge deletes runs older than MaxAge; 0 means no limit by age.
	MaxAge time.Duration
}

// IsZero reports whether r keeps everything.
func (r Retention) IsZero() bool { return r.KeepRuns <= 0 && r.MaxAge <= 0 }

// Prune deletes the memctx records of threadID that r does not keep and
// returns how many it deleted. With the zero Retention it deletes nothing.
func (j *Journal) Prune(ctx context.Context, threadID string, r Retention) (int64, error) {
	var n int64
	if r.MaxAge > 0 {
		cutoff := j.now().Add(-r.MaxAge).UnixMilli()
		res, err := j.conn.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND thread_id = ? AND created_at < ?`,
			ScopeMemCtx, threadID, cutoff)
		if err != nil {
			return n, fmt.Errorf("journal: prune runs of %s: %w", threadID, err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	if r.KeepRuns > 0 {
		res, err := j.conn.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND thread_id = ? AND key NOT IN (
			SELECT key FROM journal WHERE scope = ? AND thread_id = ? ORDER BY created_at DESC, key DESC LIMIT ?)`,
			ScopeMemCtx, threadID, ScopeMemCtx, threadID, r.KeepRuns)
		if err != nil {
			return n, fmt.Errorf("journal: prune runs of %s: %w", threadID, err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	return n, nil
}
