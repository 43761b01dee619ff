package pgtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestDropSchemaWinsDeadlock: a session still working in a test's schema
// when DSN's cleanup drops it, and deadlocking with the DROP, is the
// deadlock's victim; the DROP succeeds and the test passes. The session
// (late) reads b, the DROP locks a and waits for b, late then reads a.
// Before, the DROP began waiting first, so its deadlock_timeout ran out
// first and it was the victim: "pgtest: DROP SCHEMA …: deadlock detected"
// failed the test (journal's TestDispatchTiesByteOrder/postgres, where
// the late session was a statement prepared in the background).
func TestDropSchemaWinsDeadlock(t *testing.T) {
	server := pgtest.ServerDSN(t)
	ctx := context.Background()
	late, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close(ctx)
	watch, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	var schema string
	lateErr := make(chan error, 1)
	t.Run("schema", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		// DROP SCHEMA … CASCADE locks a, then b (their creation order).
		var a, b uint32
		if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`CREATE TABLE a (x int)`, `CREATE TABLE b (x int)`} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := conn.QueryRow(ctx, `SELECT 'a'::regclass::oid, 'b'::regclass::oid`).Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`BEGIN`, `SELECT 1 FROM ` + schema + `.b LIMIT 0`} {
			if _, err := late.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		go func() {
			// Once the cleanup's DROP holds a and waits for b, late asks for a.
			for {
				var dropping bool
				if err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks h JOIN pg_locks w ON w.pid = h.pid
					WHERE h.relation = $1 AND h.granted AND h.mode = 'AccessExclusiveLock'
					AND w.relation = $2 AND NOT w.granted AND w.mode = 'AccessExclusiveLock')`, a, b).Scan(&dropping); err != nil {
					lateErr <- err
					return
				}
				if dropping {
					break
				}
				time.Sleep(time.Millisecond)
			}
			_, err := late.Exec(ctx, `SELECT 1 FROM `+schema+`.a LIMIT 0`)
			if _, rerr := late.Exec(ctx, `ROLLBACK`); rerr != nil && err == nil {
				err = rerr
			}
			lateErr <- err
		}()
	})
	if err, pe := <-lateErr, (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "40P01" {
		t.Errorf("the late session's read: %v; want it the deadlock's victim (40P01)", err)
	}
	var left bool
	if err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&left); err != nil || left {
		t.Errorf("schema %s still there after its test (%v)", schema, err)
	}
}
