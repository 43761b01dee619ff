package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

func TestSchemaVersionMatchesMigrations(t *testing.T) {
	if got, want := pgstore.MigrationCount(), pgstore.SchemaVersion; got != want {
		t.Fatalf("migrations=%d, SchemaVersion=%d", got, want)
	}
}

// mustOpen opens dsn, closing the pool when t ends.
//
// Its migration guard sees no session: the shared server's other tests
// hold sessions of builds without session marks (migrationguard_test.go
// tests the guard).
func mustOpen(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgstore.OpenSeeing(t.Context(), dsn, pgstore.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// versions returns schema_version's rows as "version@applied_at".
func versions(t *testing.T, q pgstore.Querier) [][2]int64 {
	t.Helper()
	rows, err := q.Query(t.Context(), `SELECT version, applied_at FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]int64, error) {
		var v [2]int64
		err := r.Scan(&v[0], &v[1])
		return v, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// catalog returns the schema's relations and triggers as "name:oid", which
// any DDL would change.
func catalog(t *testing.T, q pgstore.Querier) []string {
	t.Helper()
	rows, err := q.Query(t.Context(), `SELECT relname || ':' || oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace
UNION ALL SELECT tgname || ':' || oid FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace)
ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOpen(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		pool := mustOpen(t, pgtest.DSN(t))
		vs := versions(t, pool)
		if got, want := len(vs), pgstore.SchemaVersion; got != want {
			t.Fatalf("schema_version rows=%d, want %d", got, want)
		}
		for i, v := range vs {
			if v[0] != int64(i+1) {
				t.Fatalf("schema_version row %d is version %d", i, v[0])
			}
		}
	})
	t.Run("ReopenIsNoOp", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		pool := mustOpen(t, dsn)
		if _, err := pool.Exec(t.Context(), `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`); err != nil {
			t.Fatal(err)
		}
		vs, cat := versions(t, pool), catalog(t, pool)
		pool2 := mustOpen(t, dsn)
		if got := versions(t, pool2); !slices.Equal(got, vs) {
			t.Fatalf("schema_version after reopen = %v, want %v", got, vs)
		}
		if got := catalog(t, pool2); !slices.Equal(got, cat) {
			t.Fatalf("catalog changed on reopen:\n got %v\nwant %v", got, cat)
		}
		var n int
		if err := pool2.QueryRow(t.Context(), `SELECT count(*) FROM threads`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("threads=%d (%v), want 1", n, err)
		}
	})
	t.Run("MigratesAnOlderSchema", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		if err := pgstore.MigrateTo(t.Context(), dsn, 1); err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`)
		pool := mustOpen(t, dsn)
		if got, want := len(versions(t, pool)), pgstore.SchemaVersion; got != want {
			t.Fatalf("versions=%d, want %d", got, want)
		}
		var n int
		if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM threads`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("threads=%d (%v), want 1", n, err)
		}
	})
	// Migration 7: a schema of version 6 gets outbox_by_resource on
	// open, its pending rows kept; a new one has it from its creation.
	t.Run("OutboxByResource", func(t *testing.T) {
		old := pgtest.DSN(t)
		if err := pgstore.MigrateTo(t.Context(), old, 6); err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, old, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('embed', 'm1', 'r', 0), ('index', 'm2', 'q', 0)`)
		for name, dsn := range map[string]string{"Existing": old, "New": pgtest.DSN(t)} {
			pool := mustOpen(t, dsn)
			var def string
			if err := pool.QueryRow(t.Context(), `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'outbox_by_resource'`).Scan(&def); err != nil {
				t.Fatalf("%s: outbox_by_resource: %v", name, err)
			}
			if !strings.HasSuffix(def, "USING btree (resource_id, op, message_id)") {
				t.Errorf("%s: index %q, want on (resource_id, op, message_id)", name, def)
			}
			var rows string
			if err := pool.QueryRow(t.Context(), `SELECT COALESCE(string_agg(op || ':' || message_id || ':' || resource_id, ',' ORDER BY id), '') FROM outbox`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"Existing": "embed:m1:r,index:m2:q"}[name]; rows != want {
				t.Errorf("%s: outbox %q, want %q", name, rows, want)
			}
		}
	})
	// Migration 8: a schema of version 7 gets the two byte-order indexes
	// on open, its rows kept; a new one has them from its creation.
	t.Run("ByteOrderIndexes", func(t *testing.T) {
		old := pgtest.DSN(t)
		if err := pgstore.MigrateTo(t.Context(), old, 7); err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, old, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`)
		for name, dsn := range map[string]string{"Existing": old, "New": pgtest.DSN(t)} {
			pool := mustOpen(t, dsn)
			var defs string
			if err := pool.QueryRow(t.Context(), `SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes
				WHERE schemaname = current_schema() AND indexname IN ('threads_by_id_bytes', 'working_memory_by_scope_bytes')`).Scan(&defs); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !strings.Contains(defs, `threads USING btree (id COLLATE "C")`) || !strings.Contains(defs, `working_memory USING btree (scope COLLATE "C")`) {
				t.Errorf("%s: indexes %q, want threads (id COLLATE \"C\") and working_memory (scope COLLATE \"C\")", name, defs)
			}
		}
		var n int
		if err := mustOpen(t, old).QueryRow(t.Context(), `SELECT count(*) FROM threads`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("threads=%d (%v) after the migration, want 1", n, err)
		}
	})
	// Migration 10: a schema of version 9 gets journal_tool_key_bytes on
	// open, its rows kept; a new one has it from its creation.
	t.Run("ToolKeyIndex", func(t *testing.T) {
		old := pgtest.DSN(t)
		if err := pgstore.MigrateTo(t.Context(), old, 9); err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, old, `INSERT INTO journal (scope, key, output, created_at) VALUES ('tool', '["run-1","t1","r1","c1"]', ''::bytea, 1)`)
		for name, dsn := range map[string]string{"Existing": old, "New": pgtest.DSN(t)} {
			var def string
			if err := mustOpen(t, dsn).QueryRow(t.Context(), `SELECT indexdef FROM pg_indexes
				WHERE schemaname = current_schema() AND indexname = 'journal_tool_key_bytes'`).Scan(&def); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !strings.Contains(def, `journal USING btree (key COLLATE "C") WHERE (scope = 'tool'::text)`) {
				t.Errorf("%s: index %q, want journal (key COLLATE \"C\") WHERE scope = 'tool'", name, def)
			}
		}
		var n int
		if err := mustOpen(t, old).QueryRow(t.Context(), `SELECT count(*) FROM journal WHERE scope = 'tool'`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("tool applications=%d (%v) after the migration, want 1", n, err)
		}
	})
	t.Run("ErrSchemaTooNew", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		pgtest.Exec(t, dsn, `CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`)
		pgtest.Exec(t, dsn, `INSERT INTO schema_version VALUES ($1, 0)`, pgstore.SchemaVersion+1)
		pool, err := pgstore.Open(t.Context(), dsn)
		if err == nil {
			pool.Close()
			t.Fatal("Open of a newer schema succeeded")
		}
		if !errors.Is(err, pgstore.ErrSchemaTooNew) || !errors.Is(err, store.ErrSchemaTooNew) {
			t.Fatalf("err = %v, want pgstore.ErrSchemaTooNew wrapping store.ErrSchemaTooNew", err)
		}
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		if got := catalog(t, conn); len(got) != 2 { // schema_version and its primary key
			t.Fatalf("Open wrote to a newer schema: %v", got)
		}
	})
	t.Run("BadDSN", func(t *testing.T) {
		_, err := pgstore.Open(t.Context(), "postgres://u:secret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
		if err == nil {
			t.Fatal("Open of a closed port succeeded")
		}
		if msg := err.Error(); strings.Contains(msg, "secret") {
			t.Fatalf("error shows the password: %s", msg)
		}
	})
}

// sqliteOnly are the SQLite tables Postgres has no use for, and why.
var sqliteOnly = map[string]string{
	// Written by SQLite triggers that record an embeddings row written
	// damaged (schema migration 11); Postgres's vector column and HNSW
	// index refuse such rows (engine's TestPostgresDamageImpossible).
	"embeddings_suspect": "the record of damaged embeddings rows",
}

// TestSchemaMirrorsSQLite checks that every table and column of the SQLite
// schema exists in Postgres, with the same nullability, except the tables
// of sqliteOnly.
func TestSchemaMirrorsSQLite(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), `SELECT m.name, p.name, p."notnull" FROM sqlite_master m, pragma_table_info(m.name) p
WHERE m.type = 'table' ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, col string
		var notNull bool
		if err := rows.Scan(&table, &col, &notNull); err != nil {
			t.Fatal(err)
		}
		if _, ok := sqliteOnly[table]; ok {
			continue
		}
		n++
		var pgNullable string
		err := pool.QueryRow(context.Background(), `SELECT is_nullable FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`, table, col).Scan(&pgNullable)
		if err != nil {
			t.Errorf("%s.%s: not in Postgres (%v)", table, col, err)
			continue
		}
		// A SQLite primary key column may be declared without NOT NULL;
		// Postgres always reports it NOT NULL.
		if notNull && pgNullable != "NO" {
			t.Errorf("%s.%s: NOT NULL in SQLite, nullable in Postgres", table, col)
		}
		if !notNull && pgNullable == "NO" && !isKey(table, col) {
			t.Errorf("%s.%s: nullable in SQLite, NOT NULL in Postgres", table, col)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 80 {
		t.Fatalf("only %d SQLite columns compared", n)
	}
}

// isKey reports whether SQLite's table.col is (part of) a primary key that
// SQLite leaves nullable in table_info.
func isKey(table, col string) bool {
	switch table + "." + col {
	case "messages.pk", "outbox.id", "working_config.id", "threads.id", "message_blobs.message_id",
		"working_memory.scope", "observations.id", "runs.id":
		return true
	}
	return false
}

// TestOpenErrNoVector opens a database without pgvector as a role that may
// not create it (pgvector is not a trusted extension): Open returns
// ErrNoVector, and the failed migration leaves nothing behind.
func TestOpenErrNoVector(t *testing.T) {
	server := pgtest.ServerDSN(t)
	suffix := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_")) + fmt.Sprint(time.Now().UnixNano()%1e9)
	role, db := "r_"+suffix, "d_"+suffix
	pgtest.Exec(t, server, "CREATE ROLE "+role+" LOGIN")
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP ROLE "+role) })
	pgtest.Exec(t, server, "CREATE DATABASE "+db+" OWNER "+role)
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+db+" WITH (FORCE)") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User, u.Path = url.User(role), "/"+db
	_, err = pgstore.Open(t.Context(), u.String())
	if !errors.Is(err, pgstore.ErrNoVector) {
		t.Fatalf("Open without pgvector: %v, want ErrNoVector", err)
	}
	conn, err := pgx.Connect(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if got := catalog(t, conn); len(got) != 0 {
		t.Fatalf("a failed migration left %v", got)
	}
}
