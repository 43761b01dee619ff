package pgstore_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestMessageCallsToolCallsNotJSON: message_calls' triggers take an
// assistant message whose tool_calls is not a JSON array (not JSON, JSON
// cut short, an object, a number) as one making no call, as SQLite's
// triggers do (json_valid, json_type; internal/store's
// TestMigrateMessageCalls): the cast to jsonb failed the insert ("invalid
// input syntax for type json"), so such a row, which the engine never
// writes but an import or a hand-made fix may, could not be stored, and
// one stored before blocked the update and delete of its thread's
// messages. The calls of the well-formed messages beside them are kept
// through insert, update and delete.
func TestMessageCallsToolCallsNotJSON(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, pgstore.SchemaVersion); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 6)`)
	pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
		('m1', 't1', 'r1', 1, 'assistant', '', 'call read_file(a.go)', '', 1, 1, ''),
		('m2', 't1', 'r1', 2, 'assistant', '', '[{"id":"call-2","name":"f","arguments":{}}', '', 2, 1, ''),
		('m3', 't1', 'r1', 3, 'assistant', '', '{"id":"call-3","name":"f","arguments":{}}', '', 3, 1, ''),
		('m4', 't1', 'r1', 4, 'assistant', '', '42', '', 4, 1, ''),
		('m5', 't1', 'r1', 5, 'assistant', '', '[{"id":"call-5","name":"f","arguments":{}}]', '', 5, 1, ''),
		('m6', 't1', 'r1', 6, 'assistant', '', '', '', 6, 1, '')`)
	pool := mustOpen(t, dsn)
	calls := func() string {
		t.Helper()
		var s *string
		if err := pool.QueryRow(ctx, `SELECT string_agg(call_id || '@' || seq, ' ' ORDER BY seq, call_id) FROM message_calls`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return ""
		}
		return *s
	}
	if got, want := calls(), "call-5@5"; got != want {
		t.Fatalf("calls after the insert: %q, want %q", got, want)
	}
	pgtest.Exec(t, dsn, `UPDATE messages SET seq = seq + 10 WHERE thread_id = 't1'`)
	if got, want := calls(), "call-5@15"; got != want {
		t.Fatalf("calls after an update of every message: %q, want %q", got, want)
	}
	pgtest.Exec(t, dsn, `UPDATE messages SET tool_calls = '[{"id":"call-1","name":"f","arguments":{}}]' WHERE id = 'm1'`)
	pgtest.Exec(t, dsn, `UPDATE messages SET tool_calls = 'no longer JSON' WHERE id = 'm5'`)
	if got, want := calls(), "call-1@11"; got != want {
		t.Fatalf("calls after mending one message and breaking another: %q, want %q", got, want)
	}
	pgtest.Exec(t, dsn, `DELETE FROM messages WHERE thread_id = 't1'`)
	if got, want := calls(), ""; got != want {
		t.Fatalf("calls after the thread's delete: %q, want %q", got, want)
	}
}
