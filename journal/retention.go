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
	// MaxAge deletes runs older than MaxAge: a thread's at its own
	// runs (Prune), every thread's at the engine's Expire (PruneAged); 0
	// means no limit by age.
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

// PruneBatch is how many memctx records PruneAged deletes in one
// statement, its own transaction: a sweep over many old records holds the
// database's write lock a batch at a time, never for all of them.
const PruneBatch = 500

// PruneAged deletes the memctx records created before cutoff (Unix
// milliseconds of the record's time), of every thread, or of resourceID's
// runs only when it is not empty, and returns how many it deleted. It is
// MaxAge's rule applied across threads, so that a thread that loads no
// context again (Prune runs at a thread's own LoadContext) keeps none
// either. It deletes PruneBatch records a statement, each its own
// transaction, walking the index of memctx records by time (or the index
// by resource): its cost follows what it deletes, not what the journal
// holds. ctx is checked before every batch: when it ends,
// PruneAged returns the count so far with ctx's error (the batches done
// stay done). The run ids stay claimed (ClaimRun): the runs table keeps
// one row per run, which holds no text.
//
// For mnemo's own packages (the engine's Expire calls it).
func (j *Journal) PruneAged(ctx context.Context, cutoff int64, resourceID string) (int64, error) {
	q, args := j.agedQuery(`key`, cutoff, resourceID)
	q = `DELETE FROM journal WHERE scope = '` + ScopeMemCtx + `' AND key IN (` + q + ` LIMIT ?)`
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		res, err := j.conn.ExecContext(ctx, q, append(args, PruneBatch)...)
		if err != nil {
			return n, fmt.Errorf("journal: prune runs older than maxAge: %w", err)
		}
		d, _ := res.RowsAffected()
		n += d
		if d < PruneBatch {
			return n, nil
		}
	}
}

// CountAged counts the records PruneAged(ctx, cutoff, resourceID) would
// delete (a dry run's answer), through the same index.
func (j *Journal) CountAged(ctx context.Context, cutoff int64, resourceID string) (int64, error) {
	q, args := j.agedQuery(`COUNT(*)`, cutoff, resourceID)
	var n int64
	if err := j.conn.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("journal: count runs older than maxAge: %w", err)
	}
	return n, nil
}

// agedQuery selects what of the memctx records created before cutoff (of
// resourceID, when not empty). The scope is written, not bound, as in
// runsQuery: a partial index serves only a condition that names its
// scope, and SQLite, without statistics, would rather take the primary
// key's equality on scope.
func (j *Journal) agedQuery(what string, cutoff int64, resourceID string) (string, []any) {
	if resourceID != "" {
		return `SELECT ` + what + ` FROM journal WHERE scope = '` + ScopeMemCtx + `' AND resource_id = ? AND created_at < ?`,
			[]any{resourceID, cutoff}
	}
	return `SELECT ` + what + ` FROM journal` + j.dialect.Text(` INDEXED BY journal_memctx_by_time`, ``) +
		` WHERE scope = '` + ScopeMemCtx + `' AND created_at < ?`, []any{cutoff}
}
