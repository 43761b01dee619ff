package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestOpenSchemaTooNew: a mnemo.db migrated by a newer mnemo is refused
// with an error a caller outside the module can match (engine.ErrSchemaTooNew;
// the sentinel it wraps is in internal/store, which no caller can import),
// naming the file, and left as it was.
func TestOpenSchemaTooNew(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, engine.DatabaseFile)
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	newer := store.SchemaVersion + 1
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", newer)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if !errors.Is(err, engine.ErrSchemaTooNew) || !strings.Contains(err.Error(), file) {
		t.Fatalf("Open of a newer database: %v, want ErrSchemaTooNew naming %s", err, file)
	}
	saysEngineOnly(t, err)
	db, err = sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != newer {
		t.Fatalf("user_version after the refused open = %d, %v; want %d", v, err, newer)
	}
}

// saysEngineOnly fails unless err's text begins with the engine's name
// once and names no internal package: "engine: store: database schema …"
// and "engine: pgstore: open HOST/DB: the search_path's …" before.
func saysEngineOnly(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "engine: ") || strings.Count(msg, "engine: ") != 1 {
		t.Errorf("%q: want one leading \"engine: \"", msg)
	}
	for _, internal := range []string{"store: ", "pgstore"} {
		if strings.Contains(msg, internal) {
			t.Errorf("%q names the internal package of %q", msg, internal)
		}
	}
}

// TestPostgresNoSuchSchema: a DSN whose search_path's first schema does
// not exist is refused with engine.ErrNoSuchSchema (matchable outside the
// module; the README pointed callers at internal/pgstore's) naming the
// schema, and no table is created in the next schema of the path.
func TestPostgresNoSuchSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	err = conn.QueryRow(context.Background(), `SELECT current_schema()`).Scan(&schema)
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	missing := "mnemo_missing_schema"
	path := missing + "," + schema + ",public" // the test's schema next: where the tables would go
	for _, mustExist := range []bool{false, true} {
		_, err := engine.Open(context.Background(), engine.Config{Postgres: pgtest.WithSearchPath(t, dsn, path), MustExist: mustExist, Embedder: recall.HashEmbedder{}})
		if !errors.Is(err, engine.ErrNoSuchSchema) || !strings.Contains(err.Error(), missing) {
			t.Fatalf("MustExist=%v: err = %v, want ErrNoSuchSchema naming %s", mustExist, err, missing)
		}
		saysEngineOnly(t, err)
	}
	if n := countTables(t, dsn); n != 0 {
		t.Fatalf("a refused open created %d tables", n)
	}
}
