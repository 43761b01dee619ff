package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestHTTPBodyTooDeep: over streamable HTTP, a JSON-RPC message nested
// deeper than the SDK reads (mcpserver.MaxDepth, 1,000 levels) is refused
// with HTTP 400 and a JSON-RPC parse error naming the limit and the byte of
// the bracket that passes it, whatever its depth; one nested exactly
// MaxDepth levels reaches the SDK, which answers it (so the SDK's limit is
// not below MaxDepth). Before, the SDK answered "malformed payload: …
// exceeded maximum nesting depth of 1000" as text/plain, no JSON-RPC.
func TestHTTPBodyTooDeep(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	// An initialize request whose params hold an array nested so that the
	// message is depth levels deep (the message and params are two).
	initialize := func(depth int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
			`"clientInfo":{"name":"t","version":"v0"},"x":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}`
	}
	for _, c := range []struct {
		name  string
		depth int
	}{
		{"Deepest", mcpserver.MaxDepth},
		{"OneTooDeep", mcpserver.MaxDepth + 1},
		{"PastEncodingJSON", 10001},
		{"Million", 1000000},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := initialize(c.depth)
			status, ctype, answer := post(t, ts.URL+"/mcp", body)
			if c.depth <= mcpserver.MaxDepth {
				if status != http.StatusOK || strings.Contains(answer, "depth") {
					t.Fatalf("depth %d: %d %s %.300s; want 200, initialized", c.depth, status, ctype, answer)
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
			at := strings.Index(body, `"x":`) + len(`"x":`) + mcpserver.MaxDepth - 2 // the bracket opening level MaxDepth+1
			want := "Parse error: the body nests arrays or objects deeper than 1000 levels, the most it may (at byte " + strconv.Itoa(at) + ")"
			if err := json.Unmarshal([]byte(answer), &rpc); err != nil || status != http.StatusBadRequest || ctype != "application/json" ||
				rpc.JSONRPC != "2.0" || rpc.ID != nil || rpc.Error.Code != -32700 || rpc.Error.Message != want {
				t.Fatalf("depth %d: %d %s %.300s (%v); want 400, application/json, -32700 %q", c.depth, status, ctype, answer, err, want)
			}
		})
	}
}

// post sends body to url as alice (a JSON-RPC request of a client that
// accepts JSON and event streams) and returns the status, content type and
// answer.
func post(t *testing.T, url, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer alice-secret-1")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
