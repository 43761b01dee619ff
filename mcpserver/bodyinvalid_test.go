package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// notJSONRPC are bodies (and, with "line" for "body", lines of mnemo mcp)
// that are valid JSON but no JSON-RPC 2.0 message or batch, with the id
// and the message of the -32600 Invalid Request answering them.
var notJSONRPC = []struct{ name, body, id, want string }{
	{"EmptyObject", `{}`, "null", `the message is not JSON-RPC 2.0: its "jsonrpc" member is missing`},
	{"OtherObject", `{"foo":1}`, "null", `the message is not JSON-RPC 2.0: its "jsonrpc" member is missing`},
	{"EmptyBatch", `[]`, "null", `the body is an empty batch: send one or more JSON-RPC messages`},
	{"String", `"x"`, "null", `the body is a string, not a JSON-RPC message (an object) or a batch of them (an array)`},
	{"Number", `42`, "null", `the body is a number, not a JSON-RPC message (an object) or a batch of them (an array)`},
	{"Null", `null`, "null", `the body is null, not a JSON-RPC message (an object) or a batch of them (an array)`},
	{"Boolean", ` true `, "null", `the body is a boolean, not a JSON-RPC message (an object) or a batch of them (an array)`},
	{"BatchOfNumber", `[1]`, "null", `element 0 of the batch: it is a number, not a JSON-RPC message (an object)`},
	{"BatchOfEmpty", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{}]`, "null", `element 1 of the batch: the message is not JSON-RPC 2.0: its "jsonrpc" member is missing`},
	{"Version1", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, "7", `the message is not JSON-RPC 2.0: its "jsonrpc" member is "1.0", not "2.0"`},
	{"VersionNumber", `{"jsonrpc":2,"id":"a","method":"tools/list"}`, `"a"`, `the message is not JSON-RPC 2.0: its "jsonrpc" member is a number, not "2.0"`},
	{"IDObject", `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`, "null", `"id" must be a string, a number or null, not an object`},
	{"MethodNumber", `{"jsonrpc":"2.0","id":8,"method":5}`, "8", `"method" must be a string, not a number`},
	{"NoMethodNoID", `{"jsonrpc":"2.0"}`, "null", `the message has neither "method" (a request or notification) nor an "id" (a response)`},
	{"NoMethodIDNull", `{"jsonrpc":"2.0","id":null,"params":{}}`, "null", `the message has neither "method" (a request or notification) nor an "id" (a response)`},
}

// TestHTTPBodyNotJSONRPC: a POST /mcp body that is valid JSON but no
// JSON-RPC 2.0 message or batch ({}, [], {"foo":1}, "x", 42) is answered
// HTTP 400 with a JSON-RPC -32600 Invalid Request naming what is wrong,
// with the message's id when it gives a string or number (else null), as
// mnemo mcp answers such a line; a valid message is answered as before.
// Before (readme71 F1), the go-sdk answered 400 text/plain "malformed
// payload: invalid message version tag \"\"; expected \"2.0\"", which a
// client reading JSON-RPC could not read.
func TestHTTPBodyNotJSONRPC(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`
	if status, ctype, answer := post(t, ts.URL+"/mcp", initialize); status != http.StatusOK || !strings.Contains(answer, `"serverInfo"`) {
		t.Fatalf("initialize: %d %s %.300s; want 200 and its result", status, ctype, answer)
	}
	for _, c := range notJSONRPC {
		t.Run(c.name, func(t *testing.T) {
			status, ctype, answer := post(t, ts.URL+"/mcp", c.body)
			var rpc struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			want := "Invalid Request: " + c.want
			if err := json.Unmarshal([]byte(answer), &rpc); err != nil || status != http.StatusBadRequest || ctype != "application/json" ||
				rpc.JSONRPC != "2.0" || string(rpc.ID) != c.id || rpc.Error.Code != -32600 || rpc.Error.Message != want {
				t.Fatalf("%d %s %.300s (%v); want 400, application/json, id %s, -32600 %q", status, ctype, answer, err, c.id, want)
			}
		})
	}
}

// TestFrameProblemValid: FrameProblem passes what the SDK decodes: a
// request, a notification, a response, an error response and a batch.
func TestFrameProblemValid(t *testing.T) {
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	} {
		if p := mcpserver.FrameProblem([]byte(m), "body"); p != "" {
			t.Errorf("%s: %q, want none", m, p)
		}
	}
}
