package msgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestCallLookupsReadEscapedNUL: the lookups of a call by its id read an
// assistant message whose stored tool-call arguments escape U+0000
// (\u0000, which Append refuses since 2026-12-06 and a store written
// before may hold) on both backends alike. On Postgres they cast the
// stored calls to jsonb, which refuses U+0000: every lookup reading that
// message failed, and with it the append of any tool result to its
// thread (the unpaired check). An escaped backslash before "u0000" (no
// U+0000) is read as before.
func TestCallLookupsReadEscapedNUL(t *testing.T) { forEachBackend(t, testCallLookupsReadEscapedNUL) }

func testCallLookupsReadEscapedNUL(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 3)`,
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
			('m1', 't1', 'r1', 1, 'assistant', '', '[{"id":"call-1","name":"f","arguments":{"a":"x\u0000y","b":"\\u0000"}}]', '', 1, 1, ''),
			('m2', 't1', 'r1', 2, 'assistant', '', '[{"id":"call-2","name":"f","arguments":{"\u0000":1}},{"id":"call-3","name":"g","arguments":"\u0000"}]', '', 2, 1, ''),
			('m3', 't1', 'r1', 3, 'tool', 'the result', '', 'call-1', 3, 1, '')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, c := range []struct {
		call string
		seq  int64
		ok   bool
	}{{"call-1", 0, false}, {"call-2", 2, true}, {"call-3", 2, true}, {"call-4", 0, false}} {
		if seq, ok, err := s.OpenCall(ctx, tx, "t1", c.call, 1, 4); err != nil || seq != c.seq || ok != c.ok {
			t.Errorf("OpenCall(%s) = %d, %v, %v; want %d, %v", c.call, seq, ok, err, c.seq, c.ok)
		}
	}
	if m, ok, err := s.ToolCall(ctx, "t1", "call-1", 3); err != nil || !ok || m.ID != "m1" {
		t.Errorf("ToolCall(call-1) = %s, %v, %v; want m1", m.ID, ok, err)
	}
	if m, ok, err := s.ToolResult(ctx, "t1", "call-1", 1); err != nil || !ok || m.ID != "m3" {
		t.Errorf("ToolResult(call-1) = %s, %v, %v; want m3", m.ID, ok, err)
	}
	if n, err := s.CountCalls(ctx, tx, msgstore.CallQuery{ThreadID: "t1", CallID: "call-3", BeforeSeq: 4}); err != nil || n != 1 {
		t.Errorf("CountCalls(call-3) = %d, %v; want 1", n, err)
	}
}
