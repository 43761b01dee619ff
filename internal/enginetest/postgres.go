package enginetest

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// placePostgres would set cfg.Postgres to a throwaway schema
// (pgtest.DSN); the engine cannot open Postgres yet, so it skips tb.
func placePostgres(tb testing.TB) Store {
	tb.Helper()
	tb.Skip("postgres: the engine does not open Postgres yet (engine.Config.Postgres)")
	return Store{}
}

// setPostgresDSN sets the Postgres DSN of cfg.
func setPostgresDSN(cfg *engine.Config, dsn string) {}

// postgresDSN returns the Postgres DSN cfg names, "" for none.
func postgresDSN(cfg engine.Config) string { return "" }

// postgresAvailable reports whether tests can open engines on Postgres.
func postgresAvailable() bool { return false }
