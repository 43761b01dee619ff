package msgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// seed stores n messages of one thread t1 of resource r1, with an
// embedding and a full-result blob each, and returns their ids.
func seed(t *testing.T, b backend, pool *sql.DB, n int) []string {
	t.Helper()
	ctx := context.Background()
	db := store.Bound(pool)
	if _, err := db.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t1', 'r1', 0, 0, ?)`, n); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("m%04d", i)
		for _, st := range []struct {
			q    string
			args []any // Postgres wants as many arguments as the statement's parameters
		}{
			{`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES (?1, 't1', 'r1', ?2, 'user', 'text ' || ?1, ?2, 1, '')`, []any{ids[i], i + 1}},
			{b.text(`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES (?1, 'hash', 'r1', 1, x'00')`,
				`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES (?1, 'hash', 'r1', 1, '[0]')`), []any{ids[i]}},
			{`INSERT INTO message_blobs (message_id, content) VALUES (?1, 'full ' || ?1)`, []any{ids[i]}},
		} {
			if _, err := db.ExecContext(ctx, st.q, st.args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

// TestEraseMessages reads the erased messages by id across IN-list chunks
// (a repeated and an unknown id included), deletes their rows and queues
// one index removal each (none on Postgres, where the indexes go with the
// rows).
func TestEraseMessages(t *testing.T) { forEachBackend(t, testEraseMessages) }

func testEraseMessages(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	ids := seed(t, b, db, store.ChunkSize+3)
	erase := append(append([]string{}, ids[:store.ChunkSize+1]...), ids[0], "unknown")

	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	msgs, err := s.ErasedByID(ctx, tx, erase)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(msgs), store.ChunkSize+1; got != want {
		t.Fatalf("erased=%d, want %d", got, want)
	}
	if m := msgs[1]; m.ID != ids[1] || m.ThreadID != "t1" || m.ResourceID != "r1" || m.Seq != 2 || m.Content != "text "+ids[1] || m.Role != "user" || m.CreatedAt.UnixMilli() != 2 {
		t.Fatalf("message read as %+v", m)
	}
	n, err := s.EraseMessages(ctx, tx, msgs, time.UnixMilli(42))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n, store.ChunkSize+1; got != want {
		t.Fatalf("embeddings deleted=%d, want %d", got, want)
	}
	if err := s.ShrinkThread(ctx, tx, "t1", len(msgs)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var left, blobs, count, bytes int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM message_blobs), message_count, bytes FROM threads`).Scan(&left, &blobs, &count, &bytes); err != nil {
		t.Fatal(err)
	}
	if left != 2 || blobs != 2 || count != 2 {
		t.Fatalf("left %d messages, %d blobs, count %d; want 2, 2, 2", left, blobs, count)
	}
	if want := 2 * len("full m0501"+"{}"); bytes != want {
		t.Fatalf("thread bytes %d, want %d (the kept messages' full text and metadata)", bytes, want)
	}
	last, ok, err := s.LastDelete(ctx)
	if b.Dialect == store.Postgres {
		// The lexical entries went with the rows (cascade): no removal is
		// owed.
		if err != nil || ok {
			t.Fatalf("LastDelete on Postgres: %d, %v, %v; want none queued", last, ok, err)
		}
		return
	}
	if err != nil || !ok {
		t.Fatalf("LastDelete: %d, %v, %v", last, ok, err)
	}
	pending, err := s.PendingDeletes(ctx, last)
	if err != nil || pending != int64(len(msgs)) {
		t.Fatalf("PendingDeletes = %d, %v; want %d", pending, err, len(msgs))
	}
	if pending, err := s.PendingDeletes(ctx, last-1); err != nil || pending != int64(len(msgs)-1) {
		t.Fatalf("PendingDeletes up to the row before the last = %d, %v; want %d", pending, err, len(msgs)-1)
	}
	due, err := s.DueDeletes(ctx, last, time.Now(), 10)
	if err != nil || len(due) != 10 || due[0].Op != "delete" || due[0].MessageID != ids[0] || due[0].Resource != "r1" {
		t.Fatalf("DueDeletes = %+v, %v", due, err)
	}
	// None failed yet; one deferred after a failure counts (a drain's
	// check: the rows still due are a later erasure's).
	if n, err := s.DeferredDeletes(ctx, last); err != nil || n != 0 {
		t.Fatalf("DeferredDeletes before any failure = %d, %v; want 0", n, err)
	}
	if err := s.DeferOutbox(ctx, []msgstore.Deferral{{ID: due[0].ID, Op: msgstore.OpDelete, NotBefore: time.Now().Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeferredDeletes(ctx, last); err != nil || n != 1 {
		t.Fatalf("DeferredDeletes after one deferral = %d, %v; want 1", n, err)
	}
	if n, err := s.DeferredDeletes(ctx, due[0].ID-1); err != nil || n != 0 {
		t.Fatalf("DeferredDeletes below the deferred row = %d, %v; want 0", n, err)
	}
}

func TestErasedOfThreadNotFound(t *testing.T) { forEachBackend(t, testErasedOfThreadNotFound) }

func testErasedOfThreadNotFound(t *testing.T, b backend) {
	ctx := context.Background()
	_, db, _ := b.openStore(t)
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, _, err := msgstore.New(db).ErasedOfThread(ctx, tx, "nope"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Fatalf("ErasedOfThread of an unknown thread: %v, want ErrNotFound", err)
	}
}
