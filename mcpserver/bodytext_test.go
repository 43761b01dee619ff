package mcpserver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPBodyInvalidText: over streamable HTTP, a request whose JSON
// escapes encode half a UTF-16 surrogate pair is refused (HTTP 400, a
// JSON-RPC invalid request) and nothing is stored, as the API's routes
// and mnemo ingest refuse it. Before, memory_append stored U+FFFD in its
// place. (A Go client cannot send one: the test's transport writes it.)
func TestHTTPBodyInvalidText(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	hc := &http.Client{Transport: bearer{"alice-secret-1", surrogate{http.DefaultTransport}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hello"}}}, nil); failed {
		t.Fatal(text)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_append",
		Arguments: map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "half SURROGATE here"}}}})
	if err == nil && !res.IsError {
		t.Errorf("a lone surrogate was accepted: %+v", res)
	}
	ms, err := e.Messages(context.Background(), "t1", 1, 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("stored after the refused append: %d messages (%v), want 1", len(ms), err)
	}
}

// surrogate writes a lone surrogate escape in place of SURROGATE in a
// request body.
type surrogate struct{ next http.RoundTripper }

func (s surrogate) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("SURROGATE"), []byte(`\ud800`))
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	return s.next.RoundTrip(r)
}
