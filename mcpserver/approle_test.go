package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAppendRoleNamesItsRoles: memory_append refuses a role it does not
// take naming the two it does, user and assistant: "system" was told
// "use user, assistant or tool" (the engine's rule), and a tool turn is
// then refused by the tool (cli58, from closing37).
func TestAppendRoleNamesItsRoles(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	hc := &http.Client{Transport: bearer{"alice-secret-1", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, tc := range []struct{ role, want string }{
		{"system", `Invalid input: invalid messages[1].role: "system" is not stored: system prompts belong to the caller; use user or assistant (field messages[1].role)`},
		{"bot", `Invalid input: invalid messages[1].role: must be user or assistant, got "bot" (field messages[1].role)`},
		{"", `Invalid input: invalid messages[1].role: must be user or assistant, got "" (field messages[1].role)`},
		{strings.Repeat("x", 31) + "éé", `Invalid input: invalid messages[1].role: must be user or assistant, got "` + strings.Repeat("x", 31) + `…" (field messages[1].role)`},
		{"tool", `Invalid input: messages[1].role "tool": memory_append stores user and assistant turns only: store tool calls and tool results ` +
			`(toolCalls, toolCallId) with the HTTP API's POST /v1/threads/{threadId}/messages or mnemo ingest (field messages[1].role)`},
	} {
		args := `{"threadId":"t1","messages":[{"role":"user","content":"hi"},{"role":` + string(mustJSON(tc.role)) + `,"content":"x"}]}`
		failed, text := call(t, cs, "memory_append", json.RawMessage(args), nil)
		if !failed || text != tc.want {
			t.Errorf("role %q: failed %v, %q; want %q", tc.role, failed, text, tc.want)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
