package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
)

// TestJSONTextUnescaped: the JSON text a model reads from the MCP server,
// a tool's result and a resource, keeps "<", ">" and "&" as stored. Before,
// the SDK's json.Marshal gave memory_context's "Tom & Jerry <3" as
// "Tom \u0026 Jerry \u003c3", and the messages resource a call's
// arguments {"q":"<b>"} as {"q":"\u003cb\u003e"}.
func TestJSONTextUnescaped(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "res-alice", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "Tom & Jerry <3"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c", Name: "find", Arguments: json.RawMessage(`{"q":"<b> & x"}`)}}},
		{Role: engine.RoleTool, ToolCallID: "c", Name: "find", Content: "found"},
	}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t1", "runId": "run-1"}, nil); failed || !strings.Contains(text, `"Tom & Jerry <3"`) {
		t.Errorf("memory_context text %s (failed %v), want the content as stored", text, failed)
	}
	for _, uri := range []string{"mnemo://threads/t1/messages", "mnemo://runs/run-1/memctx"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		text := rr.Contents[0].Text
		if strings.Contains(text, `\u00`) {
			t.Errorf("%s: %s, want no \\u00 escape", uri, text)
		}
		if uri == "mnemo://threads/t1/messages" && !strings.Contains(text, `"q": "<b> & x"`) {
			t.Errorf("%s: %s, want the arguments as stored", uri, text)
		}
	}
}

// TestErrorTextAsGiven: a tool's error names the argument's value as
// given: memory_search and memory_context with "at": "<noon>&" say
// `parsing time "<noon>&"`. Before, server.ParseTime quoted the value with
// json.Marshal, and the model read `parsing time "\u003cnoon\u003e\u0026"`,
// text it never sent.
func TestErrorTextAsGiven(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, tool := range []string{"memory_search", "memory_context"} {
		failed, text := call(t, cs, tool, map[string]any{"threadId": "t1", "query": "cats", "at": "<noon>&"}, nil)
		if !failed || !strings.Contains(text, `parsing time "<noon>&"`) || !strings.Contains(text, "(field at)") {
			t.Errorf("%s at \"<noon>&\": failed=%v %q, want the value as given", tool, failed, text)
		}
	}
}
