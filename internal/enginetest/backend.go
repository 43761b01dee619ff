package enginetest

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// Backend is one store an engine runs on in the engine's conformance suite.
type Backend struct {
	// Name is "sqlite" or "postgres": the subtest's name.
	Name string
	// place returns the location of a new, empty store.
	place func(tb testing.TB) Store
	// available reports whether the backend can run here.
	available func() bool
}

// Store is the location of one store (a data directory, or a Postgres
// database): every engine opened on a config from Config uses the same
// data, as a restarted process or a second process would.
type Store struct {
	dir string // SQLite: the data directory
	dsn string // Postgres: the DSN
}

// Config returns cfg located on s (its Dir or Postgres DSN set to s's).
func (s Store) Config(cfg engine.Config) engine.Config {
	cfg.Dir = s.dir
	setPostgresDSN(&cfg, s.dsn)
	return cfg
}

// String encodes s as one string, "sqlite:<dir>" or "postgres:<dsn>", for
// a child process's environment (ParseStore).
func (s Store) String() string {
	if s.dsn != "" {
		return "postgres:" + s.dsn
	}
	return "sqlite:" + s.dir
}

// ParseStore decodes what Store.String returned; ok is false for anything
// else.
func ParseStore(v string) (s Store, ok bool) {
	if dir, found := strings.CutPrefix(v, "sqlite:"); found && dir != "" {
		return Store{dir: dir}, true
	}
	if dsn, found := strings.CutPrefix(v, "postgres:"); found && dsn != "" {
		return Store{dsn: dsn}, true
	}
	return Store{}, false
}

// SQLite is the embedded backend: a data directory under tb.TempDir().
var SQLite = Backend{Name: "sqlite", available: func() bool { return true }, place: func(tb testing.TB) Store {
	return Store{dir: tb.TempDir()}
}}

// Postgres is the Postgres backend: a throwaway schema on the server named
// by $MNEMO_TEST_POSTGRES (pgtest.DSN), dropped when the test ends; tests
// on it are skipped with a message when the variable is unset.
var Postgres = Backend{Name: "postgres", available: postgresAvailable, place: placePostgres}

// Backends are SQLite and Postgres, in that order: the rows of the engine's
// conformance suite (ForEachBackend).
var Backends = []Backend{SQLite, Postgres}

// ForEachBackend runs test as a subtest per backend ("sqlite",
// "postgres"), with the same assertions: the engine must behave the same on
// both. The Postgres subtest skips when $MNEMO_TEST_POSTGRES is unset.
func ForEachBackend(t *testing.T, test func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) { test(t, b) })
	}
}

// ForEachBackendParallel is ForEachBackend with the subtests run side by
// side (t.Parallel): the Postgres subtest mostly waits on the server's
// round trips and the SQLite one mostly computes, so the pair takes about
// the longer of the two rather than their sum. Only for tests whose
// backends share nothing: no package variable or test hook, no
// environment (t.Setenv panics in a parallel test), no state of the
// enclosing test the subtests change, and no process-wide measure (heap,
// testing.AllocsPerRun, goroutine or file counts) the other backend's
// subtest would disturb. Up to -test.parallel (GOMAXPROCS by default)
// parallel subtests run at once.
func ForEachBackendParallel(t *testing.T, test func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// Available returns the backends tests can run on here: SQLite, and
// Postgres when $MNEMO_TEST_POSTGRES is set. Fuzz targets, which open their
// engines once before fuzzing and cannot skip one backend, loop over it.
func Available() []Backend {
	var out []Backend
	for _, b := range Backends {
		if b.available() {
			out = append(out, b)
		}
	}
	return out
}

// Config returns cfg located on a new, empty store of b (Dir on SQLite,
// Postgres on Postgres), unless cfg already names one; opening the returned
// config again reopens the same store (a restart, or another process's
// engine on it). It skips tb on Postgres when $MNEMO_TEST_POSTGRES is unset.
func (b Backend) Config(tb testing.TB, cfg engine.Config) engine.Config {
	tb.Helper()
	if cfg.Dir == "" && cfg.Postgres == "" {
		return b.place(tb).Config(cfg)
	}
	return cfg
}

// NewStore returns the location of a new, empty store of b, for tests that
// open several engines on one store (Store.Config). It skips tb on
// Postgres when $MNEMO_TEST_POSTGRES is unset.
func (b Backend) NewStore(tb testing.TB) Store {
	tb.Helper()
	return b.place(tb)
}

// MustOpen is MustOpen on b: an engine on a new, empty store of b (or the
// one cfg names), drained, checked and closed when the test ends.
func (b Backend) MustOpen(tb testing.TB, cfg engine.Config) *engine.Engine {
	tb.Helper()
	return MustOpen(tb, b.Config(tb, cfg))
}
