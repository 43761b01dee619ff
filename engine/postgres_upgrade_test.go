package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// This file tests a rolling upgrade on Postgres (walk35): an older build
// kept writing into a schema a newer one had migrated under it.

// TestPostgresSchemaMigratedUnderIt: once a newer build has migrated the
// schema (here: its schema_version row, as a later build's migration
// commits it), an engine opened before refuses its next write with
// ErrSchemaMigrated and writes nothing, rather than rows the migrated
// schema would read wrongly. Without the check the append was stored.
func TestPostgresSchemaMigratedUnderIt(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	msg := []engine.Message{{Role: engine.RoleUser, Content: "yesterday I bought trains"}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msg}); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, pgstore.SchemaVersion+1)
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msg})
	want := fmt.Sprintf("(database version %d, this build %d)", pgstore.SchemaVersion+1, pgstore.SchemaVersion)
	if !errors.Is(err, engine.ErrSchemaMigrated) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "engine: engine:") {
		t.Fatalf("Append after the migration: %v, want ErrSchemaMigrated saying %q", err, want)
	}
	if got := pgRows(t, dsn, "messages"); got != 1 {
		t.Fatalf("messages = %d after the refused append, want 1", got)
	}
}

// TestPostgresMigrateUnderLoad: Open does not migrate a schema of an older
// version while a session of an older build (no application_name, its
// last statement on mnemo's tables) is connected: ErrMigrationUnderLoad
// naming it, nothing migrated; Config.MigrateUnderLoad migrates anyway.
func TestPostgresMigrateUnderLoad(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	// Version 9: migrations 10 and 11 only add journal_tool_key_bytes and
	// journal_memo_key_bytes, 12 drops dispatches.result_digest, 13 adds
	// journal_by_thread_resource, 14 journal_tool_obs with its trigger and
	// functions, 15 message_calls and its triggers, 16 the trigger
	// functions' search path and recalled_obs_ids again, 17 the seq in
	// messages_by_tool_call, 18 message_calls_of, 19 shared_bounds.
	pgtest.Exec(t, dsn, `DROP TRIGGER journal_tool_obs_insert ON journal`)
	pgtest.Exec(t, dsn, `DROP TABLE journal_tool_obs`)
	pgtest.Exec(t, dsn, `DROP FUNCTION journal_tool_obs_link()`)
	pgtest.Exec(t, dsn, `DROP FUNCTION recalled_obs_ids(bytea)`)
	pgtest.Exec(t, dsn, `DROP INDEX journal_tool_key_bytes`)
	pgtest.Exec(t, dsn, `DROP INDEX journal_memo_key_bytes`)
	pgtest.Exec(t, dsn, `DROP INDEX journal_by_thread_resource`)
	pgtest.Exec(t, dsn, `ALTER TABLE dispatches ADD COLUMN result_digest TEXT NOT NULL DEFAULT ''`)
	pgtest.Exec(t, dsn, `DROP TABLE message_calls`)
	pgtest.Exec(t, dsn, `DROP FUNCTION message_calls_apply CASCADE`)
	pgtest.Exec(t, dsn, `DROP FUNCTION message_calls_of(text)`)
	pgtest.Exec(t, dsn, `DROP INDEX messages_by_tool_call`)
	pgtest.Exec(t, dsn, `CREATE INDEX messages_by_tool_call ON messages(thread_id, tool_call_id) WHERE tool_call_id <> ''`)
	pgtest.Exec(t, dsn, `DROP TABLE shared_bounds`)
	pgtest.Exec(t, dsn, `DELETE FROM schema_version WHERE version IN (10, 11, 12, 13, 14, 15, 16, 17, 18, 19)`)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	old, err := pgx.ConnectConfig(ctx, cfg) // as an older build connects: no application_name
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close(ctx)
	var pid int32
	if err := old.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(ctx, `SELECT count(*) FROM lexical_docs`); err != nil {
		t.Fatal(err)
	}
	_, err = engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	var ue *pgstore.UnderLoadError
	if !errors.Is(err, engine.ErrMigrationUnderLoad) || !errors.As(err, &ue) || !slices.ContainsFunc(ue.Sessions, func(s pgstore.Session) bool { return s.PID == pid }) {
		t.Fatalf("Open under an older build's session: %v, want ErrMigrationUnderLoad with pid %d among its sessions", err, pid)
	}
	if got := pgRows(t, dsn, "schema_version"); got != 9 {
		t.Fatalf("schema_version rows = %d after the refused Open, want 9", got)
	}
	e, err = engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, MigrateUnderLoad: true})
	if err != nil {
		t.Fatalf("Open with MigrateUnderLoad: %v", err)
	}
	e.Close()
	if got := pgRows(t, dsn, "schema_version"); got != pgstore.SchemaVersion {
		t.Fatalf("schema_version rows = %d after MigrateUnderLoad, want %d", got, pgstore.SchemaVersion)
	}
}

// pgRows counts table's rows in dsn's schema.
func pgRows(t *testing.T, dsn, table string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
