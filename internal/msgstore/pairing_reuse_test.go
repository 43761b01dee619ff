package msgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestResultLookupsSeekBySeq: the statements finding a call id's last
// result before a seq (LastResult; the first step of ToolCall's and
// OpenCall's answeredSQL) and its first result after one (FirstResult,
// ToolResult) bound the seq in the index of results: on a thread of
// 1,000 turns reusing call_0 among 2,000 others, they seek it, where keyed (thread_id,
// tool_call_id) the index gave every result for the id, each read from the
// table for its seq. On Postgres the rows a generic plan of each lookup
// reads are counted (pg_stat_xact_user_tables), on SQLite the plan is read.
func TestResultLookupsSeekBySeq(t *testing.T) { forEachBackend(t, testResultLookupsSeekBySeq) }

func testResultLookupsSeekBySeq(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	// 1,000 user turns, 1,000 turns reusing call_0 (its call and its
	// result), 1,000 user turns, then a call_0: a lookup reads, without
	// the seq in the index, every result for call_0 or the 1,000 user
	// turns beside them.
	const turns = 1000
	var rows []string
	seq := 0
	add := func(role, calls, callID string) {
		seq++
		rows = append(rows, fmt.Sprintf(`('m%d', 't1', 'r1', %d, '%s', 'text', %s, '%s', 1, 1, '')`, seq, seq, role, calls, callID))
	}
	const call = `'[{"id":"call_0","name":"f","arguments":{}}]'`
	for range turns {
		add("user", "NULL", "")
	}
	for range turns {
		add("assistant", call, "")
		add("tool", "NULL", "call_0")
	}
	for range turns {
		add("user", "NULL", "")
	}
	add("assistant", call, "")
	last := int64(seq)
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, %d)`, seq),
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES ` + strings.Join(rows, ", "),
		b.Dialect.Text(`ANALYZE`, `ANALYZE messages`),
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if b.Dialect == store.SQLite {
		for _, q := range []string{s.ResultSQL(true), s.ResultSQL(false), s.AnsweredSQL(false)} {
			plan := b.Plan(t, db, q, "t1", "call_0", last)
			if !strings.Contains(plan, "messages_by_tool_call (thread_id=? AND tool_call_id=? AND seq") {
				t.Errorf("the plan does not seek the seq in messages_by_tool_call: %s", plan)
			}
		}
		return
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// A generic plan (as Postgres may choose for a statement pgx prepared)
	// knows no seq to walk the thread's messages from.
	if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	read := func() int64 {
		var n int64
		if err := tx.QueryRowContext(ctx, `SELECT seq_tup_read + COALESCE(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
			WHERE relid = 'messages'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		name   string
		lookup func() (int64, bool, error)
		want   int64
	}{
		{"LastResult", func() (int64, bool, error) { return s.LastResult(ctx, tx, "t1", "call_0", last) }, 3 * turns},
		{"FirstResult", func() (int64, bool, error) {
			_, seq, ok, err := s.FirstResult(ctx, tx, "t1", "call_0", 1)
			return seq, ok, err
		}, turns + 2},
		{"OpenCall", func() (int64, bool, error) { return s.OpenCall(ctx, tx, "t1", "call_0", 1, last+1) }, last},
	} {
		before := read()
		seq, ok, err := c.lookup()
		if err != nil || !ok || seq != c.want {
			t.Fatalf("%s = %d, %v, %v; want %d, true", c.name, seq, ok, err, c.want)
		}
		if n := read() - before; n > 5 {
			t.Errorf("%s read %d messages of the thread's %d for one lookup, want a seek of the call's results by seq", c.name, n, last)
		}
	}
}
