package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPBodyTrailingData: over streamable HTTP, a body that goes on
// past its JSON-RPC message (or batch) with anything but whitespace is
// refused with HTTP 400 and a JSON-RPC parse error naming the byte, and
// its tool call does not run. Before, the SDK decoded the first value and
// ignored the rest: a memory_append followed by a stray "}" stored its
// message, and of two messages on two lines the second went unanswered.
func TestHTTPBodyTrailingData(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`
	for _, c := range []struct {
		name, body string
		at         int // the byte named, -1: accepted
	}{
		{"OKWhitespace", initialize + " \r\n\t", -1},
		{"ErrBrace", initialize + `}`, len(initialize)},
		{"ErrBracket", initialize + `]`, len(initialize)},
		{"ErrBatchBracket", `[` + initialize + `]]`, len(initialize) + 2},
		{"ErrSecondMessage", initialize + "\n" + initialize, len(initialize) + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ctype, answer := post(t, ts.URL+"/mcp", c.body)
			if c.at < 0 {
				if status != http.StatusOK {
					t.Fatalf("%d %s %.300s; want 200", status, ctype, answer)
				}
				return
			}
			var rpc struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			want := "Parse error: unexpected data after the JSON value at byte " + strconv.Itoa(c.at)
			if err := json.Unmarshal([]byte(answer), &rpc); err != nil || status != http.StatusBadRequest || ctype != "application/json" ||
				rpc.JSONRPC != "2.0" || rpc.ID != nil || rpc.Error.Code != -32700 || rpc.Error.Message != want {
				t.Fatalf("%d %s %.300s (%v); want 400, application/json, -32700 %q", status, ctype, answer, err, want)
			}
		})
	}
	t.Run("ErrToolCall", func(t *testing.T) {
		hc := &http.Client{Transport: bearer{"alice-secret-1", trailing{http.DefaultTransport}}}
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
			Arguments: map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "TRAILING"}}}})
		if err == nil && !res.IsError {
			t.Errorf("a body with a stray \"}\" was accepted: %+v", res)
		}
		ms, err := e.Messages(context.Background(), "t1", 1, 0)
		if err != nil || len(ms) != 1 {
			t.Fatalf("stored after the refused append: %d messages (%v), want 1", len(ms), err)
		}
	})
}

// trailing appends a "}" to a request body that holds TRAILING.
type trailing struct{ next http.RoundTripper }

func (s trailing) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(b, []byte("TRAILING")) {
			b = append(b, '}')
		}
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	return s.next.RoundTrip(r)
}
