package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	Exec(tb, server, "CREATE SCHEMA "+schema)
	tb.Cleanup(func() { dropSchema(tb, server, schema) })
	return WithSearchPath(tb, server, schema+",public")
}

// dropSchema drops schema with everything in it, on a session that is
// never the victim of a deadlock: its deadlock_timeout (when the role is a
// superuser, as pg-test-server's is) is an hour, so a session that still
// works in the schema and deadlocks with the DROP finds the deadlock
// first (after its own deadlock_timeout, 1 s by default) and fails
// instead. Such a session outlives its test's pool: a statement whose
// client closed (cancelled) it while the server still ran it, or one
// prepared in the background that a plain db.Close left running
// (storetest.Backend.OpenDB); it locks the schema's tables in another
// order than DROP SCHEMA … CASCADE does.
func dropSchema(tb testing.TB, server, schema string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`SELECT set_config('deadlock_timeout', '1h', false) FROM pg_roles WHERE rolname = current_user AND rolsuper`,
		"DROP SCHEMA " + schema + " CASCADE",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			tb.Fatalf("pgtest: %s: %v", sql, err)
		}
	}
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
