package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPBodyNotJSON: a POST /mcp body that is not JSON, cut short, or
// empty is answered HTTP 400 with a JSON-RPC parse error (-32700, id
// null, JSON-RPC 2.0 §5.1) naming the byte, as a body with trailing data
// is; a valid message is answered as before. Before (readme68 F1), the
// SDK answered 400 text/plain "malformed payload: unmarshaling jsonrpc
// message: unexpected EOF", which a client reading JSON-RPC could not read.
func TestHTTPBodyNotJSON(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`
	if status, ctype, answer := post(t, ts.URL+"/mcp", initialize); status != http.StatusOK || !strings.Contains(answer, `"serverInfo"`) {
		t.Fatalf("initialize: %d %s %.300s; want 200 and its result", status, ctype, answer)
	}
	for _, c := range []struct{ name, body, want string }{
		{"ErrText", "not json", "Parse error: malformed JSON at byte 1: invalid character 'o' in literal null (expecting 'u')"},
		{"ErrCutShort", `{"jsonrpc":"2.0","id":15,"method":"tools/call"`, "Parse error: malformed JSON at byte 46: unexpected end of JSON input"},
		{"ErrNonASCII", "{\u00a0}", "Parse error: malformed JSON at byte 1: invalid character '\\u00a0' (U+00A0) looking for beginning of object key string"},
		{"ErrEmpty", "", "Parse error: the body is empty; send a JSON-RPC message"},
		{"ErrBlank", " \n", "Parse error: the body is empty; send a JSON-RPC message"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ctype, answer := post(t, ts.URL+"/mcp", c.body)
			var rpc struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(answer), &rpc); err != nil || status != http.StatusBadRequest || ctype != "application/json" ||
				rpc.JSONRPC != "2.0" || rpc.ID != nil || rpc.Error.Code != -32700 || rpc.Error.Message != c.want {
				t.Fatalf("%d %s %.300s (%v); want 400, application/json, -32700 %q", status, ctype, answer, err, c.want)
			}
		})
	}
}
