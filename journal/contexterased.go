package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/internal/store"
)

// RunContextLockClass is the first key ("mnjr") of the transaction-scoped
// advisory locks that order, on Postgres, a run's working-memory write
// against an erasure of the run's resource (LockRunContexts,
// CheckRunContext); the second is hashtext(current_schema() || '/' ||
// resource), so two deployments in two schemas do not wait for each
// other. Exported for the tests that watch for a waiter (pg_locks).
const RunContextLockClass int32 = 0x6d6e6a72

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
// this inside its write transaction, before the write's statements, sees
// either the marked record or writes before the erasure, whose
// working-memory rebuild then finds the version: on SQLite the two
// transactions run one at a time (one writer); on Postgres this takes,
// for the rest of q's transaction, the shared lock of the record's
// resource that the erasure takes exclusive (LockRunContexts) before it
// reads the versions, and reads the record again under it (READ
// COMMITTED: the read sees every erasure that committed before the lock
// was granted, and no erasure of the resource commits until q's
// transaction ends). q is then a store.Conn of the Postgres dialect
// (store.Bound of the transaction), which is how the lock is known to be
// needed.
//
// For mnemo's own packages: q is the write's transaction.
func CheckRunContext(ctx context.Context, q RowQuerier, runID string) error {
	resource, raw, err := readRunContext(ctx, q, runID)
	if err != nil || raw == nil {
		return err
	}
	if c, ok := q.(store.Conn); ok && store.DialectOfConn(c) == store.Postgres {
		if err := lockRunContext(ctx, q, resource, "_shared"); err != nil {
			return err
		}
		if _, raw, err = readRunContext(ctx, q, runID); err != nil || raw == nil {
			return err
		}
	}
	var rec struct {
		ContextErased bool `json:"contextErased"`
	}
	if json.Unmarshal(raw, &rec) != nil || !rec.ContextErased {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRunContextErased, runID)
}

// readRunContext reads through q the resource and the output of runID's
// memctx record; raw is nil when there is none.
func readRunContext(ctx context.Context, q RowQuerier, runID string) (resource string, raw []byte, err error) {
	err = q.QueryRowContext(ctx, `SELECT resource_id, output FROM journal WHERE scope = ? AND key = ?`, ScopeMemCtx, MemCtxKey(runID)).Scan(&resource, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("journal: read memctx of run %s: %w", runID, err)
	}
	if raw == nil {
		raw = []byte{} // an empty output is a record all the same
	}
	return resource, raw, nil
}

// LockRunContexts takes in tx, on Postgres, the exclusive lock of each of
// resources (RunContextLockClass), in byte order so that two erasures
// never wait for each other in a cycle, held until tx ends: a run's
// working-memory write of one of those resources (CheckRunContext, which
// takes the lock shared) then either committed before, and the erasure's
// reads see its version, or waits until the erasure committed, and its
// check sees the mark. The erasure takes it before it reads the versions
// or the records. On SQLite it does nothing: its write transactions run
// one at a time.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func LockRunContexts(ctx context.Context, tx store.Conn, resources []string) error {
	if store.DialectOfConn(tx) != store.Postgres {
		return nil
	}
	tx = store.Bound(tx)
	ids := slices.Clone(resources)
	slices.Sort(ids)
	for _, r := range slices.Compact(ids) {
		if err := lockRunContext(ctx, tx, r, ""); err != nil {
			return err
		}
	}
	return nil
}

// lockRunContext takes through q the transaction-scoped advisory lock of
// resource, shared when mode is "_shared", exclusive when it is "".
func lockRunContext(ctx context.Context, q RowQuerier, resource, mode string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM pg_advisory_xact_lock`+mode+`(?, hashtext(current_schema() || '/' || ?::text))`,
		RunContextLockClass, resource).Scan(&one)
	if err != nil {
		return fmt.Errorf("journal: lock the run contexts of %s: %w", resource, err)
	}
	return nil
}
