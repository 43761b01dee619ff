package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAppendCountedFirst: memory_append's messages past
// limits.maxMessagesPerAppend are refused by their count, in the HTTP
// API's words, before any message is walked or decoded: `Invalid input:
// … at most 1000 messages per append, got 1001 (field messages)`. Before,
// each message was walked first, and 1001 empty ones were "messages[0].role
// is required" (a million took 28 s to say so).
func TestAppendCountedFirst(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	hc := &http.Client{Transport: bearer{"alice-secret-1", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	args := `{"threadId":"t1","messages":[` + strings.TrimSuffix(strings.Repeat("{},", 1001), ",") + `]}`
	failed, text := call(t, cs, "memory_append", json.RawMessage(args), nil)
	if !failed || !strings.Contains(text, "at most 1000 messages per append, got 1001") || !strings.HasSuffix(text, "(field messages)") {
		t.Fatalf("failed %v, %q; want the count's refusal naming messages", failed, text)
	}
}
