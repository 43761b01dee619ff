package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// BenchmarkApplyDeletes measures the drainer's application of a batch of
// n delete rows (applyOutbox) whose messages are erased and not stored
// again, the common case: the removal from bleve and the loaded shard of
// resource r (1,000 indexed messages, its shard loaded) and the rows'
// bookkeeping. The rows are built in memory and name messages no index
// holds, so every iteration does the same work.
func BenchmarkApplyDeletes(b *testing.B) {
	for _, n := range []int{1, 64, outboxBatch} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchApplyDeletes(b, n) })
	}
}

func benchApplyDeletes(b *testing.B, n int) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for k := 0; k < 1000; k += 500 {
		msgs := make([]Message, 500)
		for i := range msgs {
			msgs[i] = Message{ID: fmt.Sprintf("m%d", k+i), Role: "user", Content: fmt.Sprintf("turn %d about the parcel", k+i)}
		}
		if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Search(ctx, SearchRequest{ResourceID: "r", Query: "parcel"}); err != nil { // loads r's shard
		b.Fatal(err)
	}
	rows := make([]msgstore.OutboxRow, n)
	for i := range rows {
		rows[i] = msgstore.OutboxRow{ID: int64(1_000_000 + i), Op: opDel, MessageID: fmt.Sprintf("gone%d", i), Resource: "r"}
	}
	e.idx.drainMu.Lock()
	defer e.idx.drainMu.Unlock()
	b.ReportAllocs()
	for b.Loop() {
		if err := e.applyOutbox(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBacklogErased measures the backlog a search of resource r
// reads (Engine.backlog, msgstore.Pending) while the removal of n erased
// messages of r from the indexes is pending (their delete rows queued:
// between an erasure's commit and its purge, or deferred after a failed
// removal); none is stored again.
func BenchmarkBacklogErased(b *testing.B) {
	for _, n := range []int{1, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			e.idx.drainMu.Lock()
			defer e.idx.drainMu.Unlock()
			if _, err := e.db.ExecContext(ctx, `WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i+1 < ?)
				INSERT INTO outbox (op, message_id, resource_id, created_at) SELECT 'delete', 'e' || i, 'r', 0 FROM c`, n); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if bl, erased := e.backlog(ctx, "r", false); bl.Pending != 0 || len(erased) != n {
					b.Fatalf("pending %d, erased %d; want 0, %d", bl.Pending, len(erased), n)
				}
			}
		})
	}
}

// BenchmarkBacklogRestored measures a search's backlog (e.backlog) of
// resource r while n delete rows of r are pending whose messages are
// stored again: in r ("same": each owes indexing) or in r2 ("other": r
// owes nothing). Pending then reads each delete row's message to compare
// its resource.
func BenchmarkBacklogRestored(b *testing.B) {
	for _, where := range []string{"same", "other"} {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s-%d", where, n), func(b *testing.B) { benchBacklogRestored(b, where == "same", n) })
		}
	}
}

func benchBacklogRestored(b *testing.B, same bool, n int) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.idx.drainMu.Lock()
	defer e.idx.drainMu.Unlock()
	stored := "r2"
	if same {
		stored = "r"
	}
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t', ?2, 0, 0)`,
		`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i+1 < ?1)
			INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest)
			SELECT 'e' || i, 't', ?2, i + 1, 'user', 'text', 0, 1, '' FROM c`,
		`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i+1 < ?1)
			INSERT INTO outbox (op, message_id, resource_id, created_at) SELECT 'delete', 'e' || i, 'r', 0 FROM c`,
	} {
		if _, err := e.db.ExecContext(ctx, q, n, stored); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(0)
	if same {
		want = int64(n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if bl, erased := e.backlog(ctx, "r", false); bl.Pending != want || len(erased) != n {
			b.Fatalf("pending %d, erased %d; want %d, %d", bl.Pending, len(erased), want, n)
		}
	}
}
