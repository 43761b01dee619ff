package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkAppend measures one Append of a batch of messages to a thread,
// with the outbox write and without waiting for the indexes.
//
// The quota variants bound the resource and the store (lifecycle.go): high
// bounds cost two usage sums per append; "evict" keeps the resource at
// 200 messages, so each append evicts a thread.
func BenchmarkAppend(b *testing.B) {
	cases := []struct {
		name  string
		size  int
		quota engine.Quota
	}{
		{"batch1", 1, engine.Quota{}},
		{"batch10", 10, engine.Quota{}},
		{"batch1/quota", 1, engine.Quota{ResourceBytes: 1 << 40, StoreBytes: 1 << 40}},
		{"batch1/quota-evict", 1, engine.Quota{ResourceMessages: 200}},
	}
	for _, c := range cases {
		size := c.size
		b.Run(c.name, func(b *testing.B) {
			e := enginetest.MustOpen(b, engine.Config{Lifecycle: engine.Lifecycle{Quota: c.quota}})
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				msgs := make([]engine.Message, size)
				for j := range msgs {
					msgs[j] = engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("message %d about trains, gardens and quarterly reports", i)}
					i++
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", i%50), ResourceID: "r", Messages: msgs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkAppendToolCall measures one Append of a tool call (call_0, as
// models number them) and its result: such an append also reads the
// thread's pending dispatches (ErrDispatchPending, dispatch_pending.go).
func BenchmarkAppendToolCall(b *testing.B) {
	e := enginetest.MustOpen(b, engine.Config{})
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "hi"}}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		msgs := []engine.Message{
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "send_email", Arguments: json.RawMessage(`{"to":"bob"}`)}}},
			{Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendConcurrent measures Appends of one message from 8
// goroutines at once (b.RunParallel, its parallelism set to 8/GOMAXPROCS),
// each to a thread of its own ("threads") or all to one thread
// ("onethread"): on SQLite the writers of the process queue in the
// database's write gate (internal/store, gate.go) before SQLite's write
// lock, the outbox drainer's among them. "threads/indexed" also waits,
// inside the timing, until the drainer has indexed every message
// (SyncIndexes): the time per message stored and indexed, which does not
// depend on how much of the indexing the drainer got done during the
// appends. ns/op is the wall time per Append across the goroutines.
func BenchmarkAppendConcurrent(b *testing.B) {
	for _, c := range []struct {
		name          string
		shared, index bool
	}{{"threads", false, false}, {"onethread", true, false}, {"threads/indexed", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			e := enginetest.MustOpen(b, engine.Config{})
			ctx := context.Background()
			var next atomic.Int64
			b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				w := next.Add(1)
				thread := fmt.Sprintf("t%d", w)
				if c.shared {
					thread = "t"
				}
				for i := 0; pb.Next(); i++ {
					msg := engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("message %d of writer %d about trains and gardens", i, w)}
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{msg}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if c.index {
				if err := e.SyncIndexes(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
