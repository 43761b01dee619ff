package pgstore_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestMigrateMessageCallsNotJSON: migration 15's backfill reads an
// assistant message whose tool_calls is not a JSON array (not JSON, JSON
// cut short, an object, a number, an empty string) as one making no call,
// as SQLite's migration 17 does: its cast failed the migration ("invalid
// input syntax for type json"), so a store at 14 holding such a row (an
// import, a hand-made fix) could not be opened by a later build. The
// migration goes on to the latest version, the well-formed message's
// call is indexed, the rows read back as stored, and the backfill's
// function is gone.
func TestMigrateMessageCallsNotJSON(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, 14); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 6)`)
	pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
		('m1', 't1', 'r1', 1, 'assistant', '', 'not json', '', 1, 1, ''),
		('m2', 't1', 'r1', 2, 'assistant', '', '[{"id":"call-2","name":"f","arguments":{}}', '', 2, 1, ''),
		('m3', 't1', 'r1', 3, 'assistant', '', '{"id":"call-3","name":"f","arguments":{}}', '', 3, 1, ''),
		('m4', 't1', 'r1', 4, 'assistant', '', '42', '', 4, 1, ''),
		('m5', 't1', 'r1', 5, 'assistant', '', '[{"id":"call-5","name":"f","arguments":{}}]', '', 5, 1, ''),
		('m6', 't1', 'r1', 6, 'assistant', '', '', '', 6, 1, '')`)
	if err := pgstore.MigrateTo(ctx, dsn, pgstore.SchemaVersion); err != nil {
		t.Fatalf("migration from 14 over tool calls that are not JSON: %v", err)
	}
	pool := mustOpen(t, dsn)
	var calls, stored string
	var fns int
	if err := pool.QueryRow(ctx, `SELECT COALESCE(string_agg(call_id || '@' || seq, ' ' ORDER BY seq, call_id), '') FROM message_calls`).Scan(&calls); err != nil {
		t.Fatal(err)
	}
	if got, want := calls, "call-5@5"; got != want {
		t.Fatalf("calls after the migration: %q, want %q", got, want)
	}
	if err := pool.QueryRow(ctx, `SELECT tool_calls FROM messages WHERE id = 'm1'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if got, want := stored, "not json"; got != want {
		t.Fatalf("m1's tool_calls after the migration: %q, want %q", got, want)
	}
	if err := pool.QueryRow(ctx, `SELECT COUNT(*) FROM pg_proc WHERE proname = 'message_calls_backfill'
		AND pronamespace = current_schema()::regnamespace`).Scan(&fns); err != nil {
		t.Fatal(err)
	}
	if fns != 0 {
		t.Fatalf("message_calls_backfill left in the schema after migration 15")
	}
}
