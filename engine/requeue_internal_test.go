package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestRebuildQueuedOnce: an index quarantined at Open while the last
// rebuild's rows are still queued (a search quarantined it, the process
// stopped before its drainer finished, the next one finds it damaged
// again) queues each message once, and keeps the rows that owe a deletion
// or an embedding. Before, every message was queued again beside the
// remaining rows: dmg2's mnemo check found 3,488 rows for 2,000 messages.
// SQLite only: Postgres has no lexical directory.
func TestRebuildQueuedOnce(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i, text := range []string{"the refund was approved on friday", "tomatoes need sun", "the train leaves at nine"} {
		m := Message{ID: "m" + string(rune('1'+i)), Role: RoleUser, Content: text}
		if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	e.idx.drainMu.Lock() // the drainer waits: the rows stay to be counted
	defer e.idx.drainMu.Unlock()
	// What the first rebuild left: m1 and m3 still to index, a deletion
	// (of an erased message) and an embedding (of m2) owed.
	if _, err := e.db.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES
		('index', 'm1', 'r', 1), ('delete', 'gone', 'r', 1), ('embed', 'm2', 'r', 1), ('index', 'm3', 'r', 1)`); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the quarantined index at each Open: empty
		lex, err := recall.OpenLexical(filepath.Join(t.TempDir(), LexicalDir))
		if err != nil {
			t.Fatal(err)
		}
		err = e.queueRebuildIfBehind(ctx, lex)
		lex.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := outboxRows(t, e)
		want := map[string]int{"index:m1": 1, "index:m2": 1, "index:m3": 1, "delete:gone": 1, "embed:m2": 1}
		if len(got) != len(want) {
			t.Fatalf("outbox %v, want %v", got, want)
		}
		for k, n := range want {
			if got[k] != n {
				t.Fatalf("outbox %v, want %v", got, want)
			}
		}
	}
}

// outboxRows counts e's outbox rows by op:message_id.
func outboxRows(t *testing.T, e *Engine) map[string]int {
	t.Helper()
	rs, err := e.db.Query(`SELECT op || ':' || message_id FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	got := map[string]int{}
	for rs.Next() {
		var k string
		if err := rs.Scan(&k); err != nil {
			t.Fatal(err)
		}
		got[k]++
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
