package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkAppendReusedCall measures one Append of a tool result to a
// thread of turns answered calls that all reuse one call id, call_0 (an
// agent that numbers its calls per turn), on each backend:
//
//	result  the result of a call_0 made by the message before it (appended
//	        outside the timing): the lookup finds the open call
//	        (msgstore.OpenCall: the last result for call_0 before it, then
//	        the call after that)
//	stray   a second result for the last call_0, answered already: the
//	        lookup finds no open call, then the last result for call_0
//	        (msgstore.LastResult)
//
// Each reads the thread's last result for call_0 before the new one;
// turns-1000 against turns-10000 says whether that grows with the
// results for the id stored before.
//
//	TMPDIR=/dev/shm go test ./engine/ -run '^$' -bench AppendReusedCall -benchtime 20x
func BenchmarkAppendReusedCall(b *testing.B) {
	for _, be := range enginetest.Available() {
		for _, turns := range []int{1000, 10000} {
			for _, kind := range []string{"result", "stray"} {
				b.Run(fmt.Sprintf("%s/%s/turns-%d", be.Name, kind, turns), func(b *testing.B) {
					benchAppendReusedCall(b, be, kind == "stray", turns)
				})
			}
		}
	}
}

func benchAppendReusedCall(b *testing.B, be enginetest.Backend, stray bool, turns int) {
	ctx := context.Background()
	e := be.MustOpen(b, engine.Config{})
	b.Cleanup(e.HoldDrain()) // no indexing beside the appends: its work is not the lookup's
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
	result := engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: "read_file", Content: "package a"}
	appendMsgs := func(ms []engine.Message) *engine.AppendResult {
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	var fill []engine.Message
	for i := range turns {
		fill = append(fill, call, result)
		if len(fill) == 1000 || i == turns-1 { // at most 1000 messages an append
			appendMsgs(fill)
			fill = nil
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if !stray {
			b.StopTimer()
			appendMsgs([]engine.Message{call})
			b.StartTimer()
		}
		res := appendMsgs([]engine.Message{result})
		if got, want := len(res.Unpaired), 0; stray {
			if got != 1 || res.UnpairedUnchecked != 0 {
				b.Fatalf("stray result: unpaired %+v, %d unchecked; want it unpaired", res.Unpaired, res.UnpairedUnchecked)
			}
		} else if got != want || res.UnpairedUnchecked != 0 {
			b.Fatalf("result: unpaired %+v, %d unchecked; want it paired", res.Unpaired, res.UnpairedUnchecked)
		}
	}
}
