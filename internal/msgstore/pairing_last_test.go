package msgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestLastResult: LastResult finds the last tool message answering a
// call id before a seq through the index of results, and a tool message
// stored with no call id (refused by the engine since; a store written
// before may hold one) answers no call, on both backends alike: the
// Postgres statement lacked the SQLite one's non-empty tool_call_id term and
// returned that message's seq for an empty call id.
func TestLastResult(t *testing.T) { forEachBackend(t, testLastResult) }

func testLastResult(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 4)`,
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_call_id, created_at, tokens, digest) VALUES
			('m1', 't1', 'r1', 1, 'user', 'a question', '', 1, 1, ''),
			('m2', 't1', 'r1', 2, 'tool', 'a result of no call id', '', 2, 1, ''),
			('m3', 't1', 'r1', 3, 'tool', 'a result', 'call-1', 3, 1, ''),
			('m4', 't1', 'r1', 4, 'tool', 'another', 'call-1', 4, 1, '')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		call   string
		before int64
		seq    int64
		ok     bool
	}{
		{"call-1", 10, 4, true},
		{"call-1", 4, 3, true},
		{"call-1", 3, 0, false},
		{"call-2", 10, 0, false},
		{"", 10, 0, false},
	} {
		tx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		seq, ok, err := s.LastResult(ctx, tx, "t1", c.call, c.before)
		_ = tx.Rollback()
		if err != nil || seq != c.seq || ok != c.ok {
			t.Errorf("LastResult(%q, before %d) = %d, %v, %v; want %d, %v", c.call, c.before, seq, ok, err, c.seq, c.ok)
		}
	}
}

// TestLastResultGenericPlan: on Postgres, a generic plan of LastResult's
// statement (plan_cache_mode = force_generic_plan, as Postgres may choose
// for a statement pgx prepared, after five custom plans) reads the
// thread's results for the call through messages_by_tool_call, not the
// thread's messages below the seq: the call id is a parameter there, and
// the partial index's predicate (a non-empty tool_call_id) is implied only when
// the statement names it. Counted in the transaction's own table
// statistics (pg_stat_xact_user_tables).
func TestLastResultGenericPlan(t *testing.T) { forEachBackend(t, testLastResultGenericPlan) }

func testLastResultGenericPlan(t *testing.T, b backend) {
	if b.Dialect != store.Postgres {
		t.Skip("plan_cache_mode is Postgres's; SQLite's statement names the index (byCallSQLite)")
	}
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	var rows []string
	for i := range 2000 {
		role, call := "user", ""
		if i%100 == 99 {
			role, call = "tool", fmt.Sprintf("call-%d", i)
		}
		rows = append(rows, fmt.Sprintf("('m%d', 't1', 'r1', %d, '%s', 'text', '%s', 1, 1, '')", i, i+1, role, call))
	}
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 2000)`,
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_call_id, created_at, tokens, digest) VALUES ` + strings.Join(rows, ", "),
		`ANALYZE messages`,
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
	if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	if seq, ok, err := s.LastResult(ctx, tx, "t1", "call-1999", 3000); err != nil || !ok || seq != 2000 {
		t.Fatalf("LastResult = %d, %v, %v; want 2000, true", seq, ok, err)
	}
	var read int64
	if err := tx.QueryRowContext(ctx, `SELECT seq_tup_read + COALESCE(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
		WHERE relid = 'messages'::regclass`).Scan(&read); err != nil {
		t.Fatal(err)
	}
	if read > 20 {
		t.Errorf("LastResult's generic plan read %d messages of the thread's 2,000 for one result, want the call's results only (messages_by_tool_call)", read)
	}
}
