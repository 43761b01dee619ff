package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

func TestRecallObservationsToolIsOptIn(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		for _, on := range []bool{false, true} {
			e := be.MustOpen(t, engine.Config{Observe: &engine.ObserveConfig{SearchTool: on}})
			toolThread(t, e, "t")
			if _, err := engine.ConnOf(e).ExecContext(context.Background(), `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
			VALUES ('o1', 't', 'r', 1, 6, 'observation', '- crate B quoted at 95 EUR, ref ZEPHYR-QUOTE', 1)`); err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(c.Tools); (got == 1) != on || (on && c.Tools[0].Function.Name != tools.RecallObservationsName) {
				t.Fatalf("SearchTool=%v: tools %+v", on, c.Tools)
			}
			if !on {
				continue
			}
			msg, err := e.HandleToolCall(ctx, "run-1", "t", "", openai.ToolCall{ID: "s1", Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tools.RecallObservationsName, Arguments: `{"query":"ZEPHYR quote"}`}})
			if err != nil || !strings.Contains(msg.Content, "95 EUR") {
				t.Fatalf("search result %q, %v", msg.Content, err)
			}
		}
	})
}

// TestReusedToolCallID: some model servers number tool calls call_0,
// call_1… afresh in every response, so one run can see call_0 twice for
// different calls. The second used to get the first one's recorded result
// ({"ok":true,"version":1} for an update that was never applied, or an
// update's result for a recallObservations call). Now a call under an id
// already applied for another call is answered with a refusal and applies
// nothing; the same call handled again (a resumed run, its arguments
// re-encoded) still gets the recorded result.
func TestReusedToolCallID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{
			Observe:       &engine.ObserveConfig{SearchTool: true},
			WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)},
		})
		appendUser(t, e, "t", "r", "I moved from Berlin to Paris")
		call := func(name, args string) openai.ToolCall {
			return openai.ToolCall{ID: "call_0", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
		}
		first, err := e.HandleToolCall(ctx, "run-1", "t", "r", call(tools.UpdateWorkingMemoryName, `{"city":"Berlin"}`))
		if err != nil || !strings.Contains(first.Content, `"ok":true`) {
			t.Fatalf("first call: %q, %v", first.Content, err)
		}
		for _, c := range []openai.ToolCall{
			call(tools.UpdateWorkingMemoryName, `{"city":"Paris"}`),
			call(tools.RecallObservationsName, `{"query":"city"}`),
		} {
			msg, err := e.HandleToolCall(ctx, "run-1", "t", "r", c)
			if err != nil || !strings.Contains(msg.Content, `"ok":false`) || !strings.Contains(msg.Content, "already used") ||
				msg.ToolCallID != "call_0" || msg.Name != c.Function.Name {
				t.Fatalf("%s reusing call_0: %+v, %v; want a refusal answering the call", c.Function.Name, msg, err)
			}
		}
		again, err := e.HandleToolCall(ctx, "run-1", "t", "r", call(tools.UpdateWorkingMemoryName, "{ \"city\" : \"Berlin\" }"))
		if err != nil || again.Content != first.Content {
			t.Fatalf("the same call again: %q, %v; want the recorded %q", again.Content, err, first.Content)
		}
		mem, err := e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		st, err := mem.Get(ctx, working.ThreadKey("t"))
		if err != nil || st.Content != `{"city":"Berlin"}` || st.Version != 1 {
			t.Fatalf("state %+v, %v; want Berlin at version 1", st, err)
		}
		// A new run may use the id again.
		if msg, err := e.HandleToolCall(ctx, "run-2", "t", "r", call(tools.UpdateWorkingMemoryName, `{"city":"Paris"}`)); err != nil || !strings.Contains(msg.Content, `"ok":true`) {
			t.Fatalf("call_0 in a new run: %q, %v", msg.Content, err)
		}
	})
}
