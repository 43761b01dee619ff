package journal

import (
	"context"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Recheck is PutMemCtxChecked's check of a record about to be stored: it
// reads through q, the record's transaction (store.Bound, Postgres), what
// the run's context held, and may scrub rec in place (ScrubRecord) or
// refuse with an error, which stores nothing.
type Recheck func(ctx context.Context, q store.Conn, rec *MemCtx) error

// PutMemCtxChecked is PutMemCtx with recheck run inside the record's
// transaction, after the run's claim and before rec is encoded. On
// Postgres the claim takes the run-context lock of rec's resource shared
// (RunContextLockClass, held for the rest of the transaction; an erasure
// takes it exclusive before it reads the records: LockRunContexts), so an erasure of the resource in another process
// either committed before recheck's reads, which see it (READ COMMITTED),
// or waits until the record is stored and then scrubs it (ScrubMemCtx).
// On SQLite recheck is not run: one process opens a directory, and its
// engine orders erasures against the composition itself. A nil recheck
// is PutMemCtx. Errors: PutMemCtx's, and recheck's as it returned it
// (nothing stored).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func (j *Journal) PutMemCtxChecked(ctx context.Context, rec *MemCtx, replace bool, recheck Recheck) error {
	return j.putMemCtx(ctx, rec, replace, recheck)
}

// claimLockedSQL is claimSQL on Postgres that also takes, before it
// inserts, the transaction's shared run-context lock of the resource
// (lockRunContext's): its arguments are claimSQL's, then
// RunContextLockClass and the resource. The statement's own snapshot
// predates the lock; the statements after it see what committed before
// the lock was granted.
const claimLockedSQL = `INSERT INTO runs (id, thread_id, resource_id, created_at)
		SELECT ?::text, ?::text, ?::text, ?::bigint FROM pg_advisory_xact_lock_shared(?, hashtext(current_schema() || '/' || ?::text))
		ON CONFLICT (id) DO NOTHING`

// ScrubRecord scrubs rec, a record not stored yet, as ScrubMemCtx scrubs a
// stored one for an erasure of erased that committed after the run read
// its turns: a reference to an erased message, or to a turn of a thread
// en deletes (its ids then entombed by en.Of), gets ErasedPreview; a query
// that quotes an erased text becomes ErasedPreview; and ContextErased is
// set when the run held an erased turn (listed, a deleted thread's, or
// what erased.Held finds) or its query quoted one. Errors are the texts'
// read's (erased.Texts).
func ScrubRecord(ctx context.Context, rec *MemCtx, erased Erased, en Entomb) error {
	held := rec.held(erased, en)
	rec.scrub(erased.IDs, en)
	quoted, err := erased.QuotedBy(ctx, rec.Query)
	if err != nil {
		return err
	}
	if quoted {
		rec.Query, held = ErasedPreview, true
	}
	if held {
		rec.ContextErased = true
	}
	return nil
}
