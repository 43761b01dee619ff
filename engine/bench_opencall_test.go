package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkAppendOpenCall measures an agent loop's two appends of a tool
// call with a fresh id (as OpenAI's call_… ids) and then its result, in a
// thread already holding pairs answered calls: an assistant call appended
// alone is checked for an earlier unanswered call of its id (ErrCallOpen).
func BenchmarkAppendOpenCall(b *testing.B) {
	for _, pairs := range []int{100, 10000} {
		b.Run(fmt.Sprintf("pairs-%d", pairs), func(b *testing.B) {
			e := enginetest.MustOpen(b, engine.Config{})
			ctx := context.Background()
			call := func(id string) []engine.Message {
				return []engine.Message{{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}}
			}
			result := func(id string) []engine.Message {
				return []engine.Message{{Role: engine.RoleTool, ToolCallID: id, Name: "read_file", Content: "package a"}}
			}
			var batch []engine.Message
			for i := range pairs {
				id := fmt.Sprintf("call_fill_%d", i)
				batch = append(batch, append(call(id), result(id)...)...)
				if len(batch) >= 1000 || i == pairs-1 {
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: batch}); err != nil {
						b.Fatal(err)
					}
					batch = nil
				}
			}
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				id := fmt.Sprintf("call_%d", n)
				n++
				for _, ms := range [][]engine.Message{call(id), result(id)} {
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
