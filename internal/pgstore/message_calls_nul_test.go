package pgstore_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestMigrateMessageCallsEscapedNUL: migration 15 and its triggers read
// an assistant message whose stored tool calls escape U+0000 (\u0000 in
// an argument's value or key: Append refuses it since 2026-12-06, a store
// written before may hold it), as msgstore's lookups do since pg62 #3
// (pgCallsHave): jsonb refuses U+0000, so the backfill's cast failed the
// migration (the new binary could not open such a store), and the
// triggers' cast failed the insert, update or delete of such a message
// (an erasure or expiry of its thread).
func TestMigrateMessageCallsEscapedNUL(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, 14); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 3)`)
	pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
		('m1', 't1', 'r1', 1, 'assistant', '', '[{"id":"call-1","name":"f","arguments":{"a":"x\u0000y","b":"\\u0000"}}]', '', 1, 1, '')`)
	if err := pgstore.MigrateTo(ctx, dsn, 15); err != nil {
		t.Fatalf("migration 15 over a message whose tool calls escape U+0000: %v", err)
	}
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
	if got, want := calls(), "call-1@1"; got != want {
		t.Fatalf("calls after the migration: %q, want %q", got, want)
	}
	pgtest.Exec(t, dsn, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
		('m2', 't1', 'r1', 2, 'assistant', '', '[{"id":"call-2","name":"f","arguments":{"\u0000":1}},{"id":"call-3","name":"g","arguments":"\u0000"}]', '', 2, 1, '')`)
	pgtest.Exec(t, dsn, `UPDATE messages SET seq = 3 WHERE id = 'm2'`)
	pgtest.Exec(t, dsn, `DELETE FROM messages WHERE id = 'm1'`)
	if got, want := calls(), "call-2@3 call-3@3"; got != want {
		t.Fatalf("calls after an insert, an update and a delete: %q, want %q", got, want)
	}
}
