package enginetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// placePostgres returns a throwaway schema on the test server
// (pgtest.DSN), dropped when tb ends; it skips tb when
// $MNEMO_TEST_POSTGRES is unset.
func placePostgres(tb testing.TB) Store {
	tb.Helper()
	return Store{dsn: pgtest.DSN(tb)}
}

// postgresAvailable reports whether tests can open engines on Postgres.
func postgresAvailable() bool { return os.Getenv(pgtest.EnvDSN) != "" }

// setPostgresDSN sets the Postgres DSN of cfg.
func setPostgresDSN(cfg *engine.Config, dsn string) { cfg.Postgres = dsn }

// OpenBehindProxy opens an engine of cfg (its Postgres set here) on a
// throwaway schema of the test server (pgtest.DSN: it skips t when
// $MNEMO_TEST_POSTGRES is unset) through a pgtest.Proxy, which the test
// hangs, severs or closes. The engine is closed when t ends, waiting at
// most 1 s (CloseContext: a hung proxy's connections finish closing in
// the background).
func OpenBehindProxy(t *testing.T, cfg engine.Config) (*engine.Engine, *pgtest.Proxy) {
	t.Helper()
	px := pgtest.NewProxy(t, pgtest.DSN(t))
	cfg.Postgres = px.DSN()
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.CloseContext(ctx)
	})
	return e, px
}
