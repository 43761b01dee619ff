package mcpserver_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
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

// TestHTTPBodyInvalidTextID: a /mcp body whose text is not valid UTF-8
// (a lone surrogate escape, a \xff byte) is answered HTTP 400 with a
// JSON-RPC -32600 that carries the request's id when it is a string or
// a number, wherever it stands among the members (null when there is
// none or it is an object), its members in the usual order (jsonrpc, id,
// error), as mnemo mcp answers such a line. Before, the id was null and
// "error" came first (readme73 F4).
func TestHTTPBodyInvalidTextID(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	call := func(id, content string) string {
		return `{"jsonrpc":"2.0",` + id + `"method":"tools/call","params":{"name":"memory_append","arguments":{"threadId":"n3","messages":[{"role":"user","content":"` + content + `"}]}}}`
	}
	for _, c := range []struct{ name, body, want string }{
		{"SurrogateNumberID", call(`"id":16,`, `lone \ud800 surrogate`),
			`{"jsonrpc":"2.0","id":16,"error":{"code":-32600,"message":"Invalid Request: the body is not valid UTF-8: \\ud800 at byte 152 is half of a UTF-16 surrogate pair"}}`},
		{"ByteStringID", call(`"id":"s-<1>",`, "bad \xff byte"),
			`{"jsonrpc":"2.0","id":"s-<1>","error":{"code":-32600,"message":"Invalid Request: the body is not valid UTF-8: invalid byte 0xff at byte 156"}}`},
		{"IDLast", `{"jsonrpc":"2.0","method":"tools/list","params":{"s":"\udc00"},"id":-2.5}`,
			`{"jsonrpc":"2.0","id":-2.5,"error":{"code":-32600,"message":"Invalid Request: the body is not valid UTF-8: \\udc00 at byte 54 is half of a UTF-16 surrogate pair"}}`},
		{"Notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\ud800"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the body is not valid UTF-8: \\ud800 at byte 59 is half of a UTF-16 surrogate pair"}}`},
		{"ObjectID", `{"jsonrpc":"2.0","id":{"a":1},"method":"x","params":{"s":"\ud800"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the body is not valid UTF-8: \\ud800 at byte 58 is half of a UTF-16 surrogate pair"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ctype, answer := post(t, ts.URL+"/mcp", c.body)
			if status != http.StatusBadRequest || ctype != "application/json" || answer != c.want {
				t.Fatalf("%d %s\n%s\nwant 400 application/json\n%s", status, ctype, answer, c.want)
			}
		})
	}
	if ms, err := e.Messages(context.Background(), "n3", 1, 0); !errors.Is(err, engine.ErrThreadNotFound) || len(ms) != 0 {
		t.Fatalf("thread n3 holds %d messages (%v) after the refused appends, want none", len(ms), err)
	}
}
