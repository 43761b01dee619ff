package msgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestMessagesPage: a page holds at most limit messages of the range, the
// lowest seqs in order or the highest in descending order, on both
// backends.
func TestMessagesPage(t *testing.T) { forEachBackend(t, testMessagesPage) }

func testMessagesPage(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := openConversation(t, b)
	seqs := func(fromSeq, toSeq int64, limit int, newest bool) []int64 {
		ms, err := s.MessagesPage(ctx, "t1", fromSeq, toSeq, limit, newest)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, m := range ms {
			out = append(out, m.Seq)
		}
		return out
	}
	for _, c := range []struct {
		from, to int64
		limit    int
		newest   bool
		want     []int64
	}{
		{1, 1 << 62, 2, false, []int64{1, 2}},
		{3, 1 << 62, 10, false, []int64{3, 4, 5}},
		{1, 1 << 62, 2, true, []int64{5, 4}},
		{1, 3, 2, true, []int64{3, 2}},
		{2, 4, 10, true, []int64{4, 3, 2}},
	} {
		if got := seqs(c.from, c.to, c.limit, c.newest); len(got) != len(c.want) || (len(got) > 0 && (got[0] != c.want[0] || got[len(got)-1] != c.want[len(c.want)-1])) {
			t.Errorf("%d..%d limit %d newest %v: %v, want %v", c.from, c.to, c.limit, c.newest, got, c.want)
		}
	}
	if ms, err := s.MessagesPage(ctx, "t2", 1, 1<<62, 10, false); err != nil || len(ms) != 0 {
		t.Errorf("empty thread: %v %v", ms, err)
	}
}

// TestThreadsPage: threads page by limit and offset over the resources
// asked (all when none), in Threads' order, on both backends.
func TestThreadsPage(t *testing.T) { forEachBackend(t, testThreadsPage) }

func testThreadsPage(t *testing.T, b backend) {
	ctx := context.Background()
	s, _ := openConversation(t, b)
	ids := func(resources []string, limit, offset int) string {
		ts, err := s.ThreadsPage(ctx, resources, limit, offset)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, th := range ts {
			out += th.ID + " "
		}
		return out
	}
	for _, c := range []struct {
		resources     []string
		limit, offset int
		want          string
	}{
		{nil, 10, 0, "t1 t2 "},
		{nil, 1, 1, "t2 "},
		{[]string{"r2"}, 10, 0, "t2 "},
		{[]string{"r1", "r2"}, 1, 0, "t1 "},
		{[]string{"r3"}, 10, 0, ""},
	} {
		if got := ids(c.resources, c.limit, c.offset); got != c.want {
			t.Errorf("%v limit %d offset %d: %q, want %q", c.resources, c.limit, c.offset, got, c.want)
		}
	}
}

// TestThreadsByteOrder: Threads and ThreadsPage order resources and ids
// in byte order ("B" < "a" < "f" < "é") on both backends, even where the
// columns' collation is linguistic (ICU's a < B < é < f): on Postgres the
// test gives them one, since the test database's own is C.UTF-8.
func TestThreadsByteOrder(t *testing.T) { forEachBackend(t, testThreadsByteOrder) }

func testThreadsByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	if b.Dialect == store.Postgres {
		exec(`ALTER TABLE threads ALTER COLUMN resource_id TYPE text COLLATE "und-x-icu", ALTER COLUMN id TYPE text COLLATE "und-x-icu"`)
	}
	for _, r := range []string{"é", "a", "f", "B"} {
		exec(`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES (?, ?, 0, 0)`, r+"/1", r)
		exec(`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES (?, 'x', 0, 0)`, r)
	}
	const want = "B/1 a/1 f/1 B a f é é/1 " // resource x sorts before é
	if b.Dialect == store.Postgres {
		var lingo string
		if err := db.QueryRowContext(ctx, `SELECT string_agg(id, ' ' ORDER BY resource_id, id) FROM threads`).Scan(&lingo); err != nil {
			t.Fatal(err)
		}
		if lingo+" " == want {
			t.Fatalf("the columns' collation orders %q bytewise: this test could not fail", lingo)
		}
	}
	ids := func(ts []msgstore.Thread, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, th := range ts {
			out += th.ID + " "
		}
		return out
	}
	if got := ids(s.Threads(ctx, "")); got != want {
		t.Errorf("Threads: %q, want %q", got, want)
	}
	if got := ids(s.ThreadsPage(ctx, nil, 10, 0)); got != want {
		t.Errorf("ThreadsPage: %q, want %q", got, want)
	}
	if got := ids(s.Threads(ctx, "x")); got != "B a f é " {
		t.Errorf(`Threads("x"): %q, want "B a f é "`, got)
	}
}
