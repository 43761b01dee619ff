package msgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// openConversation stores thread t1 of r1 with five messages (user,
// assistant, user, assistant, tool at seqs 1..5) and thread t2 of r2 with
// none, and two outbox rows created at 1000 and 3000 ms.
func openConversation(t *testing.T, b backend) (*msgstore.Store, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, 5), ('t2', 'r2', 0, 0, 0)`,
		`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES
			('m1', 't1', 'r1', 1, 'user', 'first question', 1, 1, ''),
			('m2', 't1', 'r1', 2, 'assistant', 'first answer', 2, 1, ''),
			('m3', 't1', 'r1', 3, 'user', 'second question', 3, 1, ''),
			('m4', 't1', 'r1', 4, 'assistant', 'second answer', 4, 1, ''),
			('m5', 't1', 'r1', 5, 'tool', 'a result', 5, 1, '')`,
		`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('index', 'm4', 'r1', 3000), ('index', 'm5', 'r1', 1000)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return s, db
}

func TestLastUserContent(t *testing.T) { forEachBackend(t, testLastUserContent) }

func testLastUserContent(t *testing.T, b backend) {
	s, _ := openConversation(t, b)
	for thread, want := range map[string]string{"t1": "second question", "t2": "", "unknown": ""} {
		got, err := s.LastUserContent(context.Background(), thread)
		if err != nil || got != want {
			t.Errorf("LastUserContent(%s) = %q, %v; want %q", thread, got, err, want)
		}
	}
}

func TestCountAfter(t *testing.T) { forEachBackend(t, testCountAfter) }

func testCountAfter(t *testing.T, b backend) {
	s, _ := openConversation(t, b)
	for _, c := range []struct {
		thread string
		seq    int64
		want   int
	}{{"t1", 0, 5}, {"t1", 3, 2}, {"t1", 5, 0}, {"t2", 0, 0}} {
		got, _, err := s.CountTokensAfter(context.Background(), c.thread, c.seq)
		if err != nil || got != c.want {
			t.Errorf("CountTokensAfter(%s, %d) = %d, %v; want %d", c.thread, c.seq, got, err, c.want)
		}
	}
}

// TestWalkFrom walks from a seq in order and stops when fn says so.
func TestWalkFrom(t *testing.T) { forEachBackend(t, testWalkFrom) }

func testWalkFrom(t *testing.T, b backend) {
	s, _ := openConversation(t, b)
	var seen []msgstore.SeqRef
	err := s.WalkFrom(context.Background(), "t1", 2, func(r msgstore.SeqRef) bool {
		seen = append(seen, r)
		return len(seen) < 3
	})
	want := []msgstore.SeqRef{{ID: "m2", Seq: 2, Role: "assistant"}, {ID: "m3", Seq: 3, Role: "user"}, {ID: "m4", Seq: 4, Role: "assistant"}}
	if err != nil || len(seen) != len(want) {
		t.Fatalf("WalkFrom = %v, %v; want %v", seen, err, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("step %d = %+v, want %+v", i, seen[i], want[i])
		}
	}
	n := 0
	if err := s.WalkFrom(context.Background(), "t1", 4, func(msgstore.SeqRef) bool { n++; return true }); err != nil || n != 2 {
		t.Errorf("walk to the end from seq 4: %d messages, %v; want 2", n, err)
	}
}

func TestCountsAndPing(t *testing.T) { forEachBackend(t, testCountsAndPing) }

func testCountsAndPing(t *testing.T, b backend) {
	s, db := openConversation(t, b)
	ctx := context.Background()
	c, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := msgstore.Counts{Messages: 5, Threads: 2, OutboxPending: 2, OldestOutbox: time.UnixMilli(1000).UTC()}
	if c != want {
		t.Errorf("Counts = %+v, want %+v", c, want)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Counts(ctx); err != nil || c.OutboxPending != 0 || !c.OldestOutbox.IsZero() {
		t.Errorf("Counts with an empty outbox = %+v, %v; want no pending and a zero oldest time", c, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	store.CloseDB(db)
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping on a closed database: nil error")
	}
}

// TestThreadOwner reads the owner through the pool and inside a
// transaction; an unknown thread is ErrNotFound.
func TestThreadOwner(t *testing.T) { forEachBackend(t, testThreadOwner) }

func testThreadOwner(t *testing.T, b backend) {
	s, db := openConversation(t, b)
	ctx := context.Background()
	if got, err := msgstore.ThreadOwner(ctx, db, "t2"); err != nil || got != "r2" {
		t.Errorf("ThreadOwner(t2) = %q, %v; want r2", got, err)
	}
	err := s.Tx(ctx, func(tx *store.Tx) error {
		got, err := msgstore.ThreadOwner(ctx, tx, "t1")
		if err == nil && got != "r1" {
			t.Errorf("ThreadOwner(t1) in a transaction = %q, want r1", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msgstore.ThreadOwner(ctx, db, "nope"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Errorf("ThreadOwner(nope) = %v, want ErrNotFound", err)
	}
}

func TestNewestWithinTokens(t *testing.T) { forEachBackend(t, testNewestWithinTokens) }

// testNewestWithinTokens: over a thread of 1,200 messages of 3 tokens
// each (three pages of the read), the count of the newest that fit, and
// CountTokensAfter and CountBetween.
func testNewestWithinTokens(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	if _, err := db.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t', 'r', 0, 0, 1200)`); err != nil {
		t.Fatal(err)
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES `)
	for i := 1; i <= 1200; i++ {
		if i > 1 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "('m%d', 't', 'r', %d, 'user', 'x', %d, 3, '')", i, i, i)
	}
	if _, err := db.ExecContext(ctx, q.String()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		after     int64
		max, want int
	}{{0, 0, 0}, {0, 2, 0}, {0, 3, 1}, {0, 5, 1}, {0, 1800, 600}, {0, 1801, 600}, {0, 3600, 1200}, {0, 1 << 40, 1200}, {1000, 1 << 40, 200}, {1000, 30, 10}, {1200, 100, 0}} {
		got, err := s.NewestWithinTokens(ctx, "t", c.after, c.max)
		if err != nil || got != c.want {
			t.Errorf("NewestWithinTokens(after %d, %d tokens) = %d, %v; want %d", c.after, c.max, got, err, c.want)
		}
	}
	if n, tok, err := s.CountTokensAfter(ctx, "t", 1000); err != nil || n != 200 || tok != 600 {
		t.Errorf("CountTokensAfter(1000) = %d, %d, %v; want 200, 600", n, tok, err)
	}
	if n, tok, err := s.CountTokensAfter(ctx, "t", 1200); err != nil || n != 0 || tok != 0 {
		t.Errorf("CountTokensAfter(1200) = %d, %d, %v; want 0, 0", n, tok, err)
	}
	for _, c := range []struct {
		from, to int64
		want     int
	}{{1, 1200, 1200}, {5, 4, 0}, {1101, 1300, 100}} {
		if got, err := s.CountBetween(ctx, "t", c.from, c.to); err != nil || got != c.want {
			t.Errorf("CountBetween(%d, %d) = %d, %v; want %d", c.from, c.to, got, err, c.want)
		}
	}
}
