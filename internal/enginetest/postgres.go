package enginetest

import (
	"os"
	"testing"

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
