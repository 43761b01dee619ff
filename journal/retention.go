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
// KeepRuns keeps the newest records, as ListRuns lists them (records of
// one millisecond by run id, in descending byte order).
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
			SELECT key FROM journal WHERE scope = ? AND thread_id = ?`+j.newestFirst()+` LIMIT ?)`,
			ScopeMemCtx, threadID, ScopeMemCtx, threadID, r.KeepRuns)
		if err != nil {
			return n, fmt.Errorf("journal: prune runs of %s: %w", threadID, err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	return n, nil
}

// newestFirst orders journal records newest first, those of one
// millisecond by key in descending byte order on both backends (COLLATE
// "C" on Postgres, whatever the column's collation): the order decides
// which runs ListRuns pages show and which KeepRuns keeps.
func (j *Journal) newestFirst() string {
	return j.dialect.Text(` ORDER BY created_at DESC, key DESC`, ` ORDER BY created_at DESC, key COLLATE "C" DESC`)
}
