package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresMustExist: Config.MustExist (what every reading command of
// the CLI sets) refuses a schema that holds no mnemo tables with
// ErrNotDataDir and creates nothing in it — a mistyped database or
// search_path is an error, not a new, empty memory spread over someone
// else's schema — and opens one that Open has created.
func TestPostgresMustExist(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	_, err := engine.Open(ctx, engine.Config{Postgres: dsn, MustExist: true, Embedder: recall.HashEmbedder{}})
	if !errors.Is(err, engine.ErrNotDataDir) {
		t.Fatalf("MustExist on an empty schema: err = %v, want ErrNotDataDir", err)
	}
	if n := countTables(t, dsn); n != 0 {
		t.Fatalf("MustExist on an empty schema created %d tables", n)
	}
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = engine.Open(ctx, engine.Config{Postgres: dsn, MustExist: true, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("MustExist on a created schema: %v", err)
	}
	_ = e.Close()
}

// countTables counts the tables of the first schema of dsn's search_path.
func countTables(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
