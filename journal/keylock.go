package journal

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/mnemo-go/mnemo/internal/store"
)

// lockClass is the first key of the journal's advisory locks on Postgres
// ("mnjl"): the two-key form keeps them apart from single-key locks
// (internal/pgstore's migration lock), from observe's per-thread observer
// lock and from other applications' classes.
const lockClass int32 = 0x6d6e6a6c

// lockKey makes the callers of one (scope, key) in several processes (or
// pools) run one at a time, so that a tool application (Apply, ApplyInput:
// a side effect) runs once across them, not only within a process. Memoized
// steps do not take it: a step racing in two processes may run in both (a
// duplicate model call), the first record committed winning; the observer
// takes a lock of its own per thread around its model calls (package
// observe), so two processes do not observe one thread at once. On
// Postgres lockKey takes a session advisory lock on a hash of (scope, key)
// and of the current schema, on a connection of its own, held until unlock
// is called (store.LockSession: two keys that collide only wait for each
// other; the connection is discarded when the lock's state on it is
// unknown; the unlock waits at most store.UnlockWait, else closes the
// connection). A process that dies releases the lock with its connection.
// On SQLite it takes nothing: there, across processes, the first record
// committed wins and fn may have run in each.
//
// Waiting honours ctx. Each running key holds one connection besides those
// fn and the record use: a pool capped (SetMaxOpenConns) below twice the
// concurrent applications could make them wait for each other.
//
// The lock is released after the record is committed, so a caller that
// got the lock next finds the record and does not run fn.
//
// The lock lives as long as its session: a connection lost while fn runs
// (a server restart, a failover, a network cut) releases it on the
// server, and another process's caller may then run fn too; the first
// record committed still wins, and every caller returns it. Nothing
// re-takes the lock on a new connection: the unlock finds the connection
// lost and discards it.
func (j *Journal) lockKey(ctx context.Context, scope, key string) (unlock func(), err error) {
	if j.dialect != store.Postgres {
		return func() {}, nil
	}
	h := fnv.New64a()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	unlock, err = store.LockSession(ctx, j.db, lockClass, strconv.FormatUint(h.Sum64(), 16))
	if err != nil {
		return nil, fmt.Errorf("journal: lock %s/%s: %w", scope, key, err)
	}
	return unlock, nil
}
