package msgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds what lets one Store speak both dialects (store.Dialect):
// statements are written in SQLite's text and rebound to Postgres's $n
// placeholders (store.Rebind); the few whose words differ carry both texts
// (store.Dialect.Text). On SQLite every helper returns its argument, so the
// SQLite path runs the exact text written.

// in returns tx speaking the store's dialect: tx itself on SQLite, a Conn
// that rebinds each statement on Postgres (whatever dialect tx claims: the
// store knows its database's).
func (s *Store) in(tx *store.Tx) store.Conn {
	if s.dialect == store.SQLite {
		return tx
	}
	if tx.Dialect != s.dialect {
		tx = &store.Tx{Tx: tx.Tx, Dialect: s.dialect}
	}
	return store.Bound(tx)
}

// pg reports whether the store is on Postgres.
func (s *Store) pg() bool { return s.dialect == store.Postgres }

// Dialect returns the dialect of the store's database.
func (s *Store) Dialect() store.Dialect { return s.dialect }

// lockKey is the first key of the transaction-scoped advisory locks the
// Postgres append takes (pg_advisory_xact_lock(int, int)): threadLock
// serializes the appends of one thread (its creation included), idLock
// the stores of one message id. The second key hashes the schema and the
// id, so databases sharing a server by schema do not contend.
const (
	threadLock = 0x6d6e0001 // "mn" 1
	idLock     = 0x6d6e0002 // "mn" 2
)

// lockThreads takes, on Postgres, the append lock (threadLock) of each of
// threads in tx, in byte order of the ids so that two erasures never wait
// for each other in a cycle; a lock tx holds already is granted at once.
// An erasure holding them cannot interleave with an append to those
// threads in another connection or process: the append waits in
// ThreadHead until the erasure commits, as SQLite's single writer waits.
// On SQLite it does nothing.
func (s *Store) lockThreads(ctx context.Context, tx store.Conn, threads ...string) error {
	if !s.pg() {
		return nil
	}
	ids := slices.Clone(threads)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if err := xactLock(ctx, tx, threadLock, id); err != nil {
			return fmt.Errorf("lock thread %s: %w", id, err)
		}
	}
	return nil
}

// LockThreads takes, in tx, the append locks of threads (lockThreads): on
// Postgres an append to one of them in another connection or process
// waits until tx ends, and one holding a lock already commits first; on
// SQLite it does nothing (one writer). A guarded erasure (expiry, quota
// eviction) takes them before its guard reads the thread, so that what
// the guard read is what the erasure erases.
func (s *Store) LockThreads(ctx context.Context, tx *store.Tx, threads ...string) error {
	return s.lockThreads(ctx, s.in(tx), threads...)
}

// xactLock takes, in tx, the Postgres advisory lock (class, id in the
// current schema), held until tx ends.
func xactLock(ctx context.Context, tx store.Conn, class int, id string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || '/' || $2::text))`, class, id)
	return err
}
