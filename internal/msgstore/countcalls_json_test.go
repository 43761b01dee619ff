package msgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestCountCallsNotJSON: CountCalls counts an assistant message whose
// tool_calls is not a JSON array (not JSON, JSON cut short, an object, a
// number, an empty string: a row an import or a hand-made fix wrote) as
// making no call, on both backends, and the well-formed messages around
// it as before, with and without SinceMS. It walked the column (json_each
// on SQLite, a jsonb cast on Postgres), which failed the count ("malformed
// JSON", "invalid input syntax for type json") and with it the append,
// settlement or erasure that asked.
func TestCountCallsNotJSON(t *testing.T) { forEachBackend(t, testCountCallsNotJSON) }

func testCountCallsNotJSON(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 8)`,
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
			('m1', 't1', 'r1', 1, 'assistant', '', '[{"id":"call-1","name":"f","arguments":{}}]', '', 10, 1, ''),
			('m2', 't1', 'r1', 2, 'assistant', '', 'call-1 not json', '', 20, 1, ''),
			('m3', 't1', 'r1', 3, 'assistant', '', '[{"id":"call-1","name":"f","arguments":{}}', '', 30, 1, ''),
			('m4', 't1', 'r1', 4, 'assistant', '', '{"id":"call-1"}', '', 40, 1, ''),
			('m5', 't1', 'r1', 5, 'assistant', '', '42', '', 50, 1, ''),
			('m6', 't1', 'r1', 6, 'assistant', '', '', '', 60, 1, ''),
			('m7', 't1', 'r1', 7, 'assistant', '', '[{"id":"call-1","name":"f","arguments":{}},{"id":"call-2"}]', '', 70, 1, ''),
			('m8', 't1', 'r1', 8, 'user', 'hi', '[{"id":"call-1"}]', '', 80, 1, '')`,
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
	ms := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		name string
		q    msgstore.CallQuery
		want int
	}{
		{"All", msgstore.CallQuery{ThreadID: "t1", CallID: "call-1", BeforeSeq: 100}, 2},
		{"Range", msgstore.CallQuery{ThreadID: "t1", CallID: "call-1", AfterSeq: 1, BeforeSeq: 7}, 0},
		{"RangeEnds", msgstore.CallQuery{ThreadID: "t1", CallID: "call-1", AfterSeq: 0, BeforeSeq: 8}, 2},
		{"Since", msgstore.CallQuery{ThreadID: "t1", CallID: "call-1", BeforeSeq: 100, SinceMS: ms(11)}, 1},
		{"SinceAll", msgstore.CallQuery{ThreadID: "t1", CallID: "call-1", BeforeSeq: 100, SinceMS: ms(10)}, 2},
		{"Other", msgstore.CallQuery{ThreadID: "t1", CallID: "call-2", BeforeSeq: 100}, 1},
		{"None", msgstore.CallQuery{ThreadID: "t1", CallID: "call-3", BeforeSeq: 100}, 0},
		{"OtherThread", msgstore.CallQuery{ThreadID: "t2", CallID: "call-1", BeforeSeq: 100}, 0},
	} {
		n, err := s.CountCalls(ctx, tx, c.q)
		if err != nil {
			t.Fatalf("%s: CountCalls(%+v): %v", c.name, c.q, err)
		}
		if n != c.want {
			t.Errorf("%s: CountCalls(%+v) = %d, want %d", c.name, c.q, n, c.want)
		}
	}
}
