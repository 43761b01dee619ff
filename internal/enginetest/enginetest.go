// Package enginetest holds test helpers shared by mnemo's packages: an engine
// on a temporary directory that is checked for consistency when the test ends.
package enginetest

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// MustOpen opens an engine on a fresh directory under tb.TempDir(), with
// cfg's other fields kept. When the test ends it closes the engine.
func MustOpen(tb testing.TB, cfg engine.Config) *engine.Engine {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("open engine: %v", err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Errorf("close engine: %v", err)
		}
	})
	return e
}
