package tools_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/storetest"
)

// backend is one database the tools' tests run on. Every test that
// touches the database runs once per backend (forEachBackend) with the
// same assertions: tool handling (the journal's applications, working
// memory's versions, observation search) must behave the same on SQLite
// and on Postgres.
type backend struct{ storetest.Backend }

// forEachBackend runs test as a subtest per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) { test(t, backend{b}) })
}
