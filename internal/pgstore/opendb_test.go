package pgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestOpenDBDialect: OpenDB migrates the schema and returns a *sql.DB that
// store reports as Postgres; statements written in SQLite's text run on it
// through store.Bound, a store.Tx and store.Stmts.
func TestOpenDBDialect(t *testing.T) {
	ctx := context.Background()
	db, err := pgstore.OpenDB(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	if d := store.DialectOf(db); d != store.Postgres || d.String() != "postgres" {
		t.Fatalf("DialectOf(OpenDB) = %v, want postgres", d)
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil || v != pgstore.SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, pgstore.SchemaVersion)
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Dialect != store.Postgres {
		t.Fatalf("Begin's dialect = %v", tx.Dialect)
	}
	if _, err := store.Bound(tx).ExecContext(ctx, `INSERT INTO runs (id, thread_id, resource_id, created_at) VALUES (?, ?, ?, ?)`,
		"run-1", "t1", "r1", 7); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var thread string
	if err := store.NewStmts(db).QueryRow(ctx, `SELECT thread_id FROM runs WHERE id = ?1 AND created_at = ?2`, "run-1", 7).Scan(&thread); err != nil || thread != "t1" {
		t.Fatalf("read back through Stmts: %q, %v", thread, err)
	}
}
