package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestToolCallsShown: memory_context and memory_search give an assistant
// turn's tool calls and a tool turn's call id and tool, as POST
// /v1/context and /v1/search do. Before, they gave role and content only:
// a turn that only called a tool was an assistant turn of content "", and
// a hit found by its call's arguments ("zephyrine") showed nothing that
// matched.
func TestToolCallsShown(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "res-alice", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "where is the bird"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "find", Arguments: json.RawMessage(`{"q":"<zephyrine>"}`)}}},
		{Role: engine.RoleTool, ToolCallID: "c1", Name: "find", Content: "on the roof"},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e, alice)
	var c mcpserver.ContextOutput
	if failed, text := call(t, cs, mcpserver.ToolContext, map[string]any{"threadId": "t1"}, &c); failed {
		t.Fatal(text)
	}
	if len(c.Messages) != 3 {
		t.Fatalf("memory_context messages %+v, want 3", c.Messages)
	}
	checkCall(t, "memory_context", c.Messages[1].ToolCalls)
	if m := c.Messages[2]; m.ToolCallID != "c1" || m.Name != "find" {
		t.Errorf("memory_context tool turn %+v, want toolCallId c1, name find", m)
	}
	var s mcpserver.SearchOutput
	if failed, text := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "zephyrine"}, &s); failed {
		t.Fatal(text)
	}
	for _, h := range s.Hits {
		if h.Seq == 2 {
			checkCall(t, "memory_search", h.ToolCalls)
			return
		}
	}
	t.Errorf("memory_search hits %+v, want seq 2", s.Hits)
}

func checkCall(t *testing.T, tool string, calls []mcpserver.ToolCall) {
	t.Helper()
	if len(calls) != 1 || calls[0].ID != "c1" || calls[0].Name != "find" {
		t.Fatalf("%s tool calls %+v, want c1 find", tool, calls)
	}
	if args, ok := calls[0].Arguments.(map[string]any); !ok || len(args) != 1 || args["q"] != "<zephyrine>" {
		t.Errorf("%s arguments %#v, want {\"q\":\"<zephyrine>\"}", tool, calls[0].Arguments)
	}
}
