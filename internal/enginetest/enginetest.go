package enginetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// MustOpen opens an engine on a fresh directory under tb.TempDir() (or
// cfg.Dir, or the database cfg.Postgres names), with cfg's other fields kept, except that a nil cfg.Embedder is
// hash-384: tests' figures must not depend on the models installed on the
// machine. When the test ends it drains the index outbox, runs Engine.Check
// (every stored message in both indexes, nothing orphaned, seqs gap-free),
// as bbolt's test helper runs Tx.Check, and closes the engine (unless the
// test closed it).
func MustOpen(tb testing.TB, cfg engine.Config) *engine.Engine {
	tb.Helper()
	if cfg.Dir == "" && cfg.Postgres == "" {
		cfg.Dir = tb.TempDir()
	}
	if cfg.Embedder == nil {
		cfg.Embedder = recall.HashEmbedder{}
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("open engine: %v", err)
	}
	tb.Cleanup(func() {
		ctx := context.Background()
		if err := e.SyncIndexes(ctx); errors.Is(err, engine.ErrClosed) {
			return // the test closed it itself
		} else if err != nil {
			tb.Errorf("sync indexes: %v", err)
		} else if err := e.Check(ctx); err != nil {
			tb.Errorf("engine check: %v", err)
		}
		if err := e.Close(); err != nil {
			tb.Errorf("close engine: %v", err)
		}
	})
	return e
}
