package msgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestActivityTiesByteOrder: threads equally idle are expired (ByActivity)
// and evicted by a quota (LeastActive) in resource then id order, bytewise
// on both backends, even where the columns' collation is linguistic: on
// Postgres the tie followed the collation (a/1 before B/1), so which
// thread a quota removed depended on the database's locale.
func TestActivityTiesByteOrder(t *testing.T) { forEachBackend(t, testActivityTiesByteOrder) }

func testActivityTiesByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, conn := b.openStore(t)
	b.Linguistic(t, conn, "threads.resource_id", "threads.id")
	for _, r := range []string{"é", "a", "f", "B"} {
		for _, th := range [][2]string{{r + "/1", r}, {r, "x"}} {
			if _, err := conn.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, last_active) VALUES (?, ?, 0, 0, 7)`, th[0], th[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for resource, want := range map[string]string{"": "B/1 a/1 f/1 B a f é é/1 ", "x": "B a f é "} {
		got := ""
		if err := s.ByActivity(ctx, resource, func(a msgstore.Activity) error {
			got += a.ThreadID + " "
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("ByActivity(%q): %q, want %q", resource, got, want)
		}
	}
	for _, c := range []struct{ resource, except, want string }{{"", "", "B/1"}, {"", "B/1", "a/1"}, {"x", "", "B"}, {"x", "B", "a"}} {
		a, err := s.LeastActive(ctx, c.resource, c.except)
		if err != nil {
			t.Fatal(err)
		}
		if a.ThreadID != c.want {
			t.Errorf("LeastActive(%q, except %q): %q, want %q", c.resource, c.except, a.ThreadID, c.want)
		}
	}
}

// TestErasedByteOrder: an erasure lists the threads of a resource and the
// erased messages (EraseResult.Threads and Messages) in thread id order,
// bytewise on both backends, even where the columns' collation is
// linguistic.
func TestErasedByteOrder(t *testing.T) { forEachBackend(t, testErasedByteOrder) }

func testErasedByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	b.Linguistic(t, conn, "threads.id", "messages.thread_id")
	var ids []string
	for i, th := range []string{"é", "a", "f", "B"} {
		if _, err := conn.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES (?, 'x', 0, 0, 1)`, th); err != nil {
			t.Fatal(err)
		}
		id := "m" + string(rune('0'+i))
		ids = append(ids, id)
		if _, err := conn.ExecContext(ctx, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES (?, ?, 'x', 1, 'user', 'text', 0, 1, '')`, id, th); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const want = "B a f é "
	threadsOf := func(msgs []msgstore.Message, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, m := range msgs {
			out += m.ThreadID + " "
		}
		return out
	}
	if got := threadsOf(s.ErasedByID(ctx, tx, ids)); got != want {
		t.Errorf("ErasedByID: messages of %q, want %q", got, want)
	}
	threads, msgs, err := s.ErasedOfResource(ctx, tx, "x")
	if got := strings.Join(threads, " ") + " "; got != want {
		t.Errorf("ErasedOfResource: threads %q, want %q", got, want)
	}
	if got := threadsOf(msgs, err); got != want {
		t.Errorf("ErasedOfResource: messages of %q, want %q", got, want)
	}
}

// TestGarbledByteOrder: the garbled messages GarbledMessages keeps under
// its limit (those Check names) are the first by thread id in byte order
// on both backends (B before a), even where the column's collation is
// linguistic.
func TestGarbledByteOrder(t *testing.T) { forEachBackend(t, testGarbledByteOrder) }

func testGarbledByteOrder(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, conn := b.openStore(t)
	b.Linguistic(t, conn, "threads.id", "messages.thread_id")
	for i, th := range []string{"é", "a", "f", "B"} {
		if _, err := conn.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES (?, 'x', 0, 0, 1)`, th); err != nil {
			t.Fatal(err)
		}
		// The digest '' matches no text: each message is garbled.
		if _, err := conn.ExecContext(ctx, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES (?, ?, 'x', 1, 'user', 'text', 0, 1, '')`,
			"m"+string(rune('0'+i)), th); err != nil {
			t.Fatal(err)
		}
	}
	gs, err := s.GarbledMessages(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].ThreadID != "B" || gs[1].ThreadID != "a" {
		t.Fatalf("GarbledMessages(limit 2) = %+v, want threads B then a", gs)
	}
}
