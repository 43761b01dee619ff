package engine

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBacklog measures the backlog a search of resource r reads
// (Engine.backlog) while n messages owe indexing (the drainer held):
// "ids" lists r's (Pending, what a search runs on SQLite),
// "count" only counts them (PendingIndex, what a search runs on
// Postgres). In n/… the n messages are r's; in others-n/… they are
// another resource's and r owes nothing: a caught-up resource searched
// while another one's import is being indexed. n 0 is the caught-up
// steady state.
func BenchmarkBacklog(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchBacklog(b, n, "r") })
	}
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("others-%d", n), func(b *testing.B) { benchBacklog(b, n, "o") })
	}
}

// benchBacklog is BenchmarkBacklog with n messages of resource owner
// owing indexing.
func benchBacklog(b *testing.B, n int, owner string) {
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
		if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: owner, Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
	want := int64(n)
	if owner != "r" {
		want = 0
	}
	b.Run("ids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if bl, _ := e.backlog(ctx, "r", false); bl.Pending != want {
				b.Fatalf("pending %d, want %d", bl.Pending, want)
			}
		}
	})
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p, err := e.ms.PendingIndex(ctx, "r"); err != nil || p != want {
				b.Fatalf("pending %d, %v; want %d", p, err, want)
			}
		}
	})
}
