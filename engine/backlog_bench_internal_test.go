package engine

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBacklog measures the backlog a search of one resource reads
// (Engine.backlog) while n of its messages owe indexing (the drainer
// held): "ids" lists them (PendingIndexIDs, what a search runs on
// SQLite), "count" only counts them (PendingIndex, what a search runs on Postgres).
// n 0 is the caught-up steady state.
func BenchmarkBacklog(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			e.idx.drainMu.Lock()
			defer e.idx.drainMu.Unlock()
			for k := 0; k < n; k += 500 {
				msgs := make([]Message, min(500, n-k))
				for i := range msgs {
					msgs[i] = Message{ID: fmt.Sprintf("m%d", k+i), Role: "user", Content: fmt.Sprintf("turn %d", k+i)}
				}
				if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("ids", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if bl := e.backlog(ctx, "r"); bl.Pending != int64(n) {
						b.Fatalf("pending %d, want %d", bl.Pending, n)
					}
				}
			})
			b.Run("count", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if p, err := e.ms.PendingIndex(ctx, "r"); err != nil || p != int64(n) {
						b.Fatalf("pending %d, %v; want %d", p, err, n)
					}
				}
			})
		})
	}
}
