package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	if err := j.claim(ctx, runID, threadID, resourceID); err != nil {
		return err
	}
	return j.CheckRun(ctx, runID, threadID, resourceID)
}

// claim inserts the claim of runID by threadID of resourceID unless the
// run id is claimed already; it does not check whose the claim is.
func (j *Journal) claim(ctx context.Context, runID, threadID, resourceID string) error {
	if _, err := j.stmts.Exec(ctx, claimSQL, runID, threadID, resourceID, j.now().UnixMilli()); err != nil {
		return fmt.Errorf("journal: claim run %s: %w", runID, err)
	}
	return nil
}

// claimSQL is claim's statement: runs' row unless the id has one; its
// arguments the run, thread and resource ids and the time (Unix ms).
const claimSQL = `INSERT INTO runs (id, thread_id, resource_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`

// CheckRun returns ErrRunOwned when runID was claimed by another thread or
// resource (ErrRunErased, which matches it, when that owner was erased),
// and nil when it is threadID's or unclaimed. It writes nothing.
func (j *Journal) CheckRun(ctx context.Context, runID, threadID, resourceID string) error {
	var thread, resource string
	err := j.stmts.QueryRow(ctx, `SELECT thread_id, resource_id FROM runs WHERE id = ?`, runID).Scan(&thread, &resource)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("journal: read run %s: %w", runID, err)
	case thread != threadID || resource != resourceID:
		return ownedErr(runID, thread, resource)
	}
	return nil
}

// TombstonePrefix starts the opaque id an erasure gives an erased owner
// (a deleted thread, an erased resource) in the records it keeps, run
// claims included; a tombstone is TombstoneLen characters: the prefix and
// 20 hex digits (engine.TombstonePrefix is this one).
const TombstonePrefix = "erased-"

// TombstoneLen is the length of a tombstone. An id that only begins with
// TombstonePrefix ("erased-x", stored before such ids were refused) is an
// owner's own id.
const TombstoneLen = len(TombstonePrefix) + 20

// isTombstone reports whether id is an erasure's tombstone.
func isTombstone(id string) bool {
	return len(id) == TombstoneLen && strings.HasPrefix(id, TombstonePrefix)
}

// ownedErr refuses runID, claimed by thread of resource, to another
// thread: ErrRunErased when the claim's owner is a tombstone, else
// ErrRunOwned. Neither names the owner.
func ownedErr(runID, thread, resource string) error {
	if isTombstone(thread) || isTombstone(resource) {
		return fmt.Errorf("%w: %s", ErrRunErased, runID)
	}
	return fmt.Errorf("%w: %s", ErrRunOwned, runID)
}

// CheckNewRun is CheckRun followed, when replace is false, by the test
// that runID has no memctx record yet, in one statement: ErrRunOwned
// (naming neither owner) when runID was claimed by another thread or
// resource, else ErrRunExists when it has a memctx record and replace is
// false, else nil. It writes nothing. LoadContext calls it before it
// composes a run, so that a refused run costs no composition.
func (j *Journal) CheckNewRun(ctx context.Context, runID, threadID, resourceID string, replace bool) error {
	var thread, resource sql.NullString
	var recorded bool
	err := j.stmts.QueryRow(ctx, `SELECT r.thread_id, r.resource_id, EXISTS (SELECT 1 FROM journal WHERE scope = ? AND key = ?)
		FROM (SELECT 1 AS one) AS o LEFT JOIN runs r ON r.id = ?`, ScopeMemCtx, MemCtxKey(runID), runID).Scan(&thread, &resource, &recorded)
	switch {
	case err != nil:
		return fmt.Errorf("journal: read run %s: %w", runID, err)
	case thread.Valid && (thread.String != threadID || resource.String != resourceID):
		return ownedErr(runID, thread.String, resource.String)
	case recorded && !replace:
		return fmt.Errorf("%w: %s", ErrRunExists, runID)
	}
	return nil
}
