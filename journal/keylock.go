package journal

import (
	"context"
	"database/sql/driver"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// lockClass is the first key of the journal's advisory locks on Postgres
// ("mnjl"): the two-key form keeps them apart from single-key locks
// (internal/pgstore's migration lock) and from other applications' classes.
const lockClass int32 = 0x6d6e6a6c

// schemaKey is the second key of a lock: a hash of the connection's
// current schema (where mnemo's tables are) and of the hash of (scope,
// key) given as $2. Advisory locks are the database's, not a schema's, so
// without the schema two deployments in two schemas of one database
// (docs/postgres.md) would wait for each other's applications of a key
// spelled the same (TestApplyAcrossSchemas).
const schemaKey = `hashtext(current_schema() || '/' || $2::text)`

// lockKey makes the callers of one (scope, key) in several processes (or
// pools) run one at a time, so that a tool application (Apply, ApplyInput:
// a side effect) runs once across them, not only within a process. Memoized
// steps do not take it: a step racing in two processes may run in both (a
// duplicate model call), the first record committed winning, and the
// observer stores one observation per range under its own lock. On
// Postgres lockKey takes a session
// advisory lock on a hash of (scope, key) on a connection of its own, held
// until unlock is called (two keys that collide only wait for each other).
// A process that dies releases the lock with its connection. On SQLite it
// takes nothing: there, across processes, the first record committed wins
// and fn may have run in each.
//
// Waiting honours ctx. The connection is discarded rather than pooled when
// the lock's state on it is unknown (an error while locking or unlocking).
// Each running key holds one connection besides those fn and the record
// use: a pool capped (SetMaxOpenConns) below twice the concurrent
// applications could make them wait for each other.
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
	id := strconv.FormatUint(h.Sum64(), 16)
	conn, err := j.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("journal: lock %s/%s: %w", scope, key, err)
	}
	discard := func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // database/sql closes it
		conn.Close()
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, `+schemaKey+`)`, lockClass, id); err != nil {
		discard()
		return nil, fmt.Errorf("journal: lock %s/%s: %w", scope, key, err)
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockWait)
		defer cancel()
		if _, err := conn.ExecContext(uctx, `SELECT pg_advisory_unlock($1, `+schemaKey+`)`, lockClass, id); err != nil {
			discard()
			return
		}
		conn.Close()
	}, nil
}

// unlockWait bounds the unlock of a key (the caller's context may have
// ended: the record is committed, the lock must still go). A server that
// does not answer within it gets the lock's connection closed instead,
// which ends the session and with it the lock. Before, the unlock waited
// for ever on a server that had stopped answering (a network black hole),
// and the tool application with it.
const unlockWait = 2 * time.Second
