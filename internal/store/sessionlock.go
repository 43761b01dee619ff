package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"time"
)

// schemaKey is the second key of a session lock: a hash of the
// connection's current schema (where mnemo's tables are) and of the id
// given as $2. Advisory locks are the database's, not a schema's, so
// without the schema two deployments in two schemas of one database
// (docs/postgres.md) would wait for each other's locks of an id spelled
// the same (journal's TestApplyAcrossSchemas).
const schemaKey = `hashtext(current_schema() || '/' || $2::text)`

// UnlockWait bounds the release of a session lock (the holder's context
// may have ended; the lock must still go). A server that does not answer
// within it gets the lock's connection closed instead, which ends the
// session and with it the lock. Before, an unlock waited for ever on a
// server that had stopped answering (a network black hole).
const UnlockWait = 2 * time.Second

// LockSession takes, on Postgres, the session advisory lock (class,
// hashtext(current schema/id)) on a connection of db's pool of its own,
// waiting for another session that holds it as long as ctx allows; it is
// held until unlock is called, or the connection is lost (a process that
// dies releases it). Two ids whose hashes collide only wait for each
// other. On SQLite it takes nothing: one process holds a data directory,
// and its callers serialise themselves. Each held lock holds one
// connection besides those its holder uses: a pool capped
// (SetMaxOpenConns) below twice the concurrent holders could make them
// wait for each other. The connection is discarded rather than pooled
// when the lock's state on it is unknown (an error while locking or
// unlocking). Errors: the database's, unwrapped (ctx's when cancelled).
func LockSession(ctx context.Context, db *sql.DB, class int32, id string) (unlock func(), err error) {
	unlock, _, err = sessionLock(ctx, db, class, id, `pg_advisory_lock`)
	return unlock, err
}

// TryLockSession is LockSession without the wait: when another session
// holds the lock it returns held false (and unlock nil) at once. On
// SQLite it holds at once.
func TryLockSession(ctx context.Context, db *sql.DB, class int32, id string) (unlock func(), held bool, err error) {
	return sessionLock(ctx, db, class, id, `pg_try_advisory_lock`)
}

// sessionLock runs fn (pg_advisory_lock, or pg_try_advisory_lock) on a
// connection of its own and keeps the connection while the lock is held.
func sessionLock(ctx context.Context, db *sql.DB, class int32, id, fn string) (unlock func(), held bool, err error) {
	if DialectOf(db) != Postgres {
		return func() {}, true, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	discard := func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // database/sql closes it
		conn.Close()
	}
	held = true
	q := `SELECT ` + fn + `($1, ` + schemaKey + `)`
	if fn == `pg_try_advisory_lock` {
		err = conn.QueryRowContext(ctx, q, class, id).Scan(&held)
	} else {
		_, err = conn.ExecContext(ctx, q, class, id)
	}
	switch {
	case err != nil:
		discard()
		return nil, false, err
	case !held:
		conn.Close()
		return nil, false, nil
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), UnlockWait)
		defer cancel()
		if _, err := conn.ExecContext(uctx, `SELECT pg_advisory_unlock($1, `+schemaKey+`)`, class, id); err != nil {
			discard()
			return
		}
		conn.Close()
	}, true, nil
}
