package journal

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ScopeDispatchErased holds one tombstone per dispatch an erasure deleted
// from a thread it kept (its call's or its result's message was erased:
// DeleteDispatches, DeleteDispatch), so a later lookup of the dispatch
// tells "erased" from "never begun" (the engine's ErrDispatchErased and
// ErrDispatchNotFound). The key is a hash of the run and call ids (64 hex
// digits of a SHA-256 of both, length-prefixed); the row keeps the thread and resource (to answer only
// their owner) and the erasure's time, never the call's name, arguments
// or result. It goes with its thread (DeleteThread); a deleted thread's
// dispatches need none, as its runs stay claimed by a tombstone.
const ScopeDispatchErased = "dispatch-erased"

// dispatchTombKey is the key of the tombstone of the dispatch (runID,
// callID): 64 hex digits of a SHA-256 of both, length-prefixed (a run id
// may hold ':').
func dispatchTombKey(runID, callID string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d:%s;%d:%s;", len(runID), runID, len(callID), callID))
	return hex.EncodeToString(sum[:])
}

// DispatchErased reads, through q, the tombstone of the dispatch (runID,
// callID): the thread and resource it was begun in (as entombed since, if
// they were), ok false when no erasure deleted such a dispatch from a kept
// thread.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DispatchErased(ctx context.Context, q Querier, runID, callID string) (threadID, resourceID string, ok bool, err error) {
	err = store.Bound(q).QueryRowContext(ctx, `SELECT thread_id, resource_id FROM journal WHERE scope = ? AND key = ?`,
		ScopeDispatchErased, dispatchTombKey(runID, callID)).Scan(&threadID, &resourceID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", "", false, nil
	case err != nil:
		return "", "", false, fmt.Errorf("journal: read the erasure of dispatch %q of run %s: %w", callID, runID, err)
	}
	return threadID, resourceID, true, nil
}

// tombstoneDispatches records, in tx, a tombstone (ScopeDispatchErased)
// for each dispatch that where (a condition on dispatches, with args)
// selects; recording one twice is a no-op. The caller deletes them next;
// tx is bound (store.Bound).
func tombstoneDispatches(ctx context.Context, tx store.Conn, now time.Time, where string, args ...any) error {
	rows, err := tx.QueryContext(ctx, `SELECT run_id, call_id, thread_id, resource_id FROM dispatches WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("journal: erase: dispatches: %w", err)
	}
	var tombs [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			rows.Close()
			return fmt.Errorf("journal: erase: dispatches: %w", err)
		}
		tombs = append(tombs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal: erase: dispatches: %w", err)
	}
	for _, r := range tombs {
		if err := tombstone(ctx, tx, ScopeDispatchErased, dispatchTombKey(r[0], r[1]), r[2], r[3], now); err != nil {
			return err
		}
	}
	return nil
}
