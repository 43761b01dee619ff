package engine

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresOpenConnections: when Open returns, the engine's pool has
// made one connection, on a fresh schema and on a migrated one (the
// migration check runs on it, inside pgstore.Open). Before, the outbox
// drainer started during the open and its first drain, beside the open's
// own statements, made the pool dial a second connection.
func TestPostgresOpenConnections(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, name := range []string{"Fresh", "Migrated", "Again"} {
		e, err := Open(t.Context(), Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := e.pool.Stat().NewConnsCount()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%s: the pool made %d connections during Open, want 1", name, n)
		}
	}
}
