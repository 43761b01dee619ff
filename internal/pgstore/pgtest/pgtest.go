package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnvDSN is the environment variable holding the test server's DSN.
const EnvDSN = "MNEMO_TEST_POSTGRES"

// ServerDSN returns the test server's DSN, or skips tb with a message
// when MNEMO_TEST_POSTGRES is unset.
func ServerDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		tb.Skipf("%s is not set: skipping a test that needs Postgres with pgvector (start one with ../shared/scripts/pg-test-server start)", EnvDSN)
	}
	return dsn
}

// DSN creates an empty schema on the test server, drops it (with what the
// test created in it) when tb ends, and returns a DSN whose search_path is
// that schema then public (where pgvector's types live). It skips tb when
// MNEMO_TEST_POSTGRES is unset.
func DSN(tb testing.TB) string {
	tb.Helper()
	server := ServerDSN(tb)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	adminExec(tb, server, "CREATE SCHEMA "+schema)
	tb.Cleanup(func() { adminExec(tb, server, "DROP SCHEMA "+schema+" CASCADE") })
	return WithSearchPath(tb, server, schema+",public")
}

// admins holds, per server DSN, the pool of connections DSN creates and
// drops schemas on, kept for the test process: a connection per schema
// and another per drop started two server processes for each test
// (~40 ms of the server's CPU each on a loaded 2-core machine).
var admins = struct {
	sync.Mutex
	pools map[string]*pgxpool.Pool
}{pools: map[string]*pgxpool.Pool{}}

// adminPool returns server's admin pool, made on first use. Its sessions
// are never the victim of a deadlock: their deadlock_timeout (when the
// role is a superuser, as pg-test-server's is) is an hour, so a session
// that still works in a schema DROP SCHEMA drops and deadlocks with it
// finds the deadlock first (after its own deadlock_timeout, 1 s by
// default) and fails instead. Such a session outlives its test's pool: a
// statement whose client closed (cancelled) it while the server still ran
// it, or one prepared in the background that a plain db.Close left
// running (storetest.Backend.OpenDB); it locks the schema's tables in
// another order than DROP SCHEMA … CASCADE does.
func adminPool(server string) (*pgxpool.Pool, error) {
	admins.Lock()
	defer admins.Unlock()
	if p, ok := admins.pools[server]; ok {
		return p, nil
	}
	cfg, err := pgxpool.ParseConfig(server)
	if err != nil {
		return nil, err
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, `SELECT set_config('deadlock_timeout', '1h', false) FROM pg_roles WHERE rolname = current_user AND rolsuper`)
		return err
	}
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	admins.pools[server] = p
	return p, nil
}

// adminExec runs sql on server's admin pool (adminPool), failing tb on
// error. A statement that fails because its connection was lost (the
// server restarted, or ended the session) is run once more: the pool
// drops a broken connection and dials a new one.
func adminExec(tb testing.TB, server, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := adminPool(server)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	for try := 0; ; try++ {
		_, err = p.Exec(ctx, sql)
		if err == nil || try == 1 || !connLost(err) {
			break
		}
	}
	if err != nil {
		tb.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// connLost reports whether err ended the statement's connection rather
// than came from the statement: nothing was sent on it (a connection the
// server closed while idle), or the server's admin_shutdown or
// crash_shutdown (SQLSTATE 57P01, 57P02).
func connLost(err error) bool {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02"
	}
	return pgconn.SafeToRetry(err)
}

// WithSearchPath returns dsn with its search_path set to path.
func WithSearchPath(tb testing.TB, dsn, path string) string {
	tb.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("pgtest: parse %s: %v", EnvDSN, err)
		}
		q := u.Query()
		q.Set("search_path", path)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + path
}

// Exec runs sql on a new connection to dsn, failing tb on error.
func Exec(tb testing.TB, dsn, sql string, args ...any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		tb.Fatalf("pgtest: %s: %v", sql, err)
	}
}
