package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAppendToolTurnsSaidElsewhere: memory_append takes user and assistant
// turns; a tool turn is refused once, saying where tool turns are stored.
// Before (readme57), role "tool" was "toolCallId is required for a tool
// message", and adding toolCallId was "unknown field
// messages[0].toolCallId": a circle with no way out.
func TestAppendToolTurnsSaidElsewhere(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	hc := &http.Client{Transport: bearer{"alice-secret-1", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, tc := range []struct{ name, args, field string }{
		{"RoleTool", `{"threadId":"t1","messages":[{"role":"user","content":"hi"},{"role":"tool","content":"42"}]}`, "messages[1].role"},
		{"ToolCallID", `{"threadId":"t1","messages":[{"role":"tool","content":"42","toolCallId":"c1"}]}`, "messages[0].toolCallId"},
		{"ToolCalls", `{"threadId":"t1","messages":[{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"f","arguments":{}}]}]}`, "messages[0].toolCalls"},
		{"SnakeCase", `{"threadId":"t1","messages":[{"role":"tool","content":"42","tool_call_id":"c1"}]}`, "messages[0].tool_call_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failed, text := call(t, cs, "memory_append", json.RawMessage(tc.args), nil)
			if !failed || !strings.Contains(text, "POST /v1/threads/{threadId}/messages") || !strings.Contains(text, "mnemo ingest") || !strings.HasSuffix(text, "(field "+tc.field+")") {
				t.Fatalf("failed %v, %q; want a refusal saying where tool turns go, naming %s", failed, text, tc.field)
			}
		})
	}
	failed, text := call(t, cs, "memory_append", json.RawMessage(`{"threadId":"t1","messages":[{"role":"user","content":"hi"}]}`), nil)
	if failed {
		t.Fatalf("a user turn after the refusals: %s", text)
	}
	if !strings.Contains(text, `"stored":1`) {
		t.Fatalf("a user turn after the refusals: %s, want it stored alone (nothing of the refused calls)", text)
	}
}
