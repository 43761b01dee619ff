package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
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
