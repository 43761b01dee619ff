// Package enginetest holds test helpers shared by mnemo's packages: an engine
// on a temporary directory that is checked for consistency when the test ends
// (MustOpen), a private TMPDIR that fails the run when a test leaves files
// behind (PrivateTempDir), and a buffer a server's goroutines may log to
// while the test reads it (SyncBuffer). Only tests import it.
//
// The engine's conformance suite runs on a table of backends (Backends:
// SQLite in a data directory under the test's temporary directory,
// Postgres on a throwaway schema of $MNEMO_TEST_POSTGRES, skipped with a
// message when it is unset): ForEachBackend runs a test once per backend
// (ForEachBackendParallel: both at once, for tests that share nothing),
// Backend.MustOpen opens an engine on a new store of it, and
// Backend.NewStore gives a Store that several engines (a restart, another
// process: Store.String and ParseStore) open in turn.
//
// # Imports
//
// It may import engine, recall and internal/pgstore/pgtest (the Postgres
// row's throwaway schemas): it and its subpackage synth (the
// synthetic corpus of tests and `mnemo bench`) are the only packages under
// internal/ that stand above the engine (internal/layout checks this),
// because their helpers open engines or build engine messages.
package enginetest
