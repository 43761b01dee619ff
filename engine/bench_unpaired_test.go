package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkAppendToolResult measures one Append of a single message to a
// thread whose last call (a fresh id, as OpenAI's call_… ids) was made
// back turns before: "result" appends that call's tool result, whose call
// Append looks up in the stored thread to fill AppendResult.Unpaired (one
// lookup: the call is not in the request); "plain" appends a user message
// in its place, the same append without the lookup. The call and the
// back-1 user turns after it are appended outside the timing, and the
// outbox is not drained (the indexing would run beside the timed append).
// result/plain is the lookup's cost against a plain append.
func BenchmarkAppendToolResult(b *testing.B) {
	for _, kind := range []string{"plain", "result"} {
		for _, back := range []int{1, 15, 40} {
			b.Run(fmt.Sprintf("%s/back-%d", kind, back), func(b *testing.B) {
				benchAppendToolResult(b, kind == "result", back)
			})
		}
	}
	for _, calls := range []int{1000, 50000} {
		for _, kind := range []string{"plain", "stray"} {
			b.Run(fmt.Sprintf("%s/calls-%d", kind, calls), func(b *testing.B) { benchAppendStray(b, kind == "stray", calls) })
		}
	}
}

// benchAppendStray appends one message at a time to a thread holding
// calls answered calls: with stray, a tool result whose id no call made,
// the worst lookup (no index holds call ids: it reads every tool-calling
// message it covers, the engine.UnpairedWindow messages before the result,
// the whole thread before that window); else a user message. stray/plain
// at calls-1000 against calls-50000 says whether the cost grows with the
// thread.
func benchAppendStray(b *testing.B, stray bool, calls int) {
	e := enginetest.MustOpen(b, engine.Config{})
	b.Cleanup(e.HoldDrain())
	ctx := context.Background()
	var fill []engine.Message
	for i := range calls {
		id := fmt.Sprintf("call_fill_%d", i)
		fill = append(fill, engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}},
			engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "read_file", Content: "package a"})
		if len(fill) == 1000 || i == calls-1 { // at most 1000 messages an append
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: fill}); err != nil {
				b.Fatal(err)
			}
			fill = nil
		}
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		m := engine.Message{Role: engine.RoleUser, Content: "and the file?"}
		if stray {
			m = engine.Message{Role: engine.RoleTool, ToolCallID: fmt.Sprintf("call_stray_%d", n), Name: "read_file", Content: "package a"}
		}
		n++
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{m}})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Unpaired) > 1 || !stray && len(res.Unpaired) != 0 {
			b.Fatalf("append %d: unpaired %+v", n, res.Unpaired)
		}
	}
}

func benchAppendToolResult(b *testing.B, result bool, back int) {
	e := enginetest.MustOpen(b, engine.Config{})
	b.Cleanup(e.HoldDrain()) // no indexing beside the appends: its work is not the lookup's
	ctx := context.Background()
	appendMsgs := func(ms []engine.Message) *engine.AppendResult {
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		id := fmt.Sprintf("call_%d", n)
		n++
		setup := []engine.Message{{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}}
		for j := 1; j < back; j++ {
			setup = append(setup, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("turn %d while %s runs", j, id)})
		}
		appendMsgs(setup)
		m := engine.Message{Role: engine.RoleUser, Content: "and the file?"}
		if result {
			m = engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "read_file", Content: "package a"}
		}
		b.StartTimer()
		if res := appendMsgs([]engine.Message{m}); len(res.Unpaired) != 0 || res.UnpairedUnchecked != 0 {
			b.Fatalf("the result of %s: unpaired %+v, %d unchecked", id, res.Unpaired, res.UnpairedUnchecked)
		}
	}
}
