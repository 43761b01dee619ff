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
	tb.Cleanup(func() { Exec(tb, server, "DROP SCHEMA "+schema+" CASCADE") })
	return WithSearchPath(tb, server, schema+",public")
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
