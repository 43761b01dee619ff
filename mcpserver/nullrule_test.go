package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNullRuleBothSides: a member given as null where its field takes no
// null (a number, a string, an object of fixed members) is refused, naming
// it, over the HTTP API and by the MCP tools alike, in the same words:
// `"recall.topK" must be a JSON number, not null` on /v1/search,
// `Invalid input: "topK" must be a JSON number, not null (field topK)` by
// memory_search. A null where the field takes one (working memory's
// content beside a patch) is taken on both. A time ("at") takes no null on
// either (the HTTP API took it as left out until left7). Before, the HTTP API read every
// such null as left out ({"recall":{"topK":null}} searched with the
// default, {"query":null} was "query is required") where MCP refused it.
func TestNullRuleBothSides(t *testing.T) {
	e := openEngine(t)
	ts := mcpHTTPServer(t, e)
	const token = "alice-secret-1"
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if failed, text := call(t, cs, "memory_append", json.RawMessage(`{"threadId":"t1","messages":[{"role":"user","content":"hello"}]}`), nil); failed {
		t.Fatal(text)
	}
	for _, c := range []struct {
		name             string
		method, path     string
		body             string // the HTTP request's
		tool, args       string // the MCP call's
		httpField, field string // the null member on each side; "" when it is taken
		kind             string // its JSON type
	}{
		{"SearchTopK", "POST", "/v1/search", `{"query":"hello","recall":{"topK":null}}`, "memory_search", `{"query":"hello","topK":null}`, "recall.topK", "topK", "number"},
		{"SearchQuery", "POST", "/v1/search", `{"query":null}`, "memory_search", `{"query":null}`, "query", "query", "string"},
		{"SearchResource", "POST", "/v1/search", `{"query":"hello","resourceId":null}`, "memory_search", `{"query":"hello","resourceId":null}`, "resourceId", "resourceId", "string"},
		{"SearchThread", "POST", "/v1/search", `{"query":"hello","threadId":null}`, "memory_search", `{"query":"hello","threadId":null}`, "threadId", "threadId", "string"},
		{"ContextRecentN", "POST", "/v1/context", `{"threadId":"t1","recentN":null}`, "memory_context", `{"threadId":"t1","recentN":null}`, "recentN", "recentN", "number"},
		{"ContextRunID", "POST", "/v1/context", `{"threadId":"t1","runId":null}`, "memory_context", `{"threadId":"t1","runId":null}`, "runId", "runId", "string"},
		// A time: HTTP's *time.Time took null as left out (the server
		// clock), where MCP's string refused it.
		{"SearchAt", "POST", "/v1/search", `{"query":"hello","at":null}`, "memory_search", `{"query":"hello","at":null}`, "at", "at", "string"},
		{"ContextAt", "POST", "/v1/context", `{"threadId":"t1","at":null}`, "memory_context", `{"threadId":"t1","at":null}`, "at", "at", "string"},
		{"AppendContent", "POST", "/v1/threads/t1/messages", `{"messages":[{"role":"user","content":null}]}`, "memory_append", `{"threadId":"t1","messages":[{"role":"user","content":null}]}`, "messages[0].content", "messages[0].content", "string"},
		{"AppendRole", "POST", "/v1/threads/t1/messages", `{"messages":[{"role":null,"content":"x"}]}`, "memory_append", `{"threadId":"t1","messages":[{"role":null,"content":"x"}]}`, "messages[0].role", "messages[0].role", "string"},
		{"WorkingMemoryPatch", "PUT", "/v1/threads/t1/working-memory", `{"patch":null}`, "working_memory_update", `{"threadId":"t1","patch":null}`, "patch", "patch", "object"},
		{"WorkingMemoryContentTaken", "PUT", "/v1/threads/t1/working-memory", `{"content":null,"patch":{"name":"Ann"}}`, "working_memory_update", `{"threadId":"t1","content":null,"patch":{"name":"Ann"}}`, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, p := doJSON(t, hc, c.method, ts.URL+c.path, c.body)
			failed, text := call(t, cs, c.tool, json.RawMessage(c.args), nil)
			if c.httpField == "" {
				if status != http.StatusOK || failed {
					t.Fatalf("HTTP %d %+v, MCP failed %v %q; want both taken", status, p, failed, text)
				}
				return
			}
			want := fmt.Sprintf("%q must be a JSON %s, not null", c.httpField, c.kind)
			if status != http.StatusBadRequest || p.Detail != want || p.Field != c.httpField {
				t.Errorf("HTTP %s %s: %d %+v; want 400 %q (field %s)", c.method, c.path, status, p, want, c.httpField)
			}
			want = fmt.Sprintf("Invalid input: %q must be a JSON %s, not null (field %s)", c.field, c.kind, c.field)
			if !failed || text != want {
				t.Errorf("MCP %s: failed %v %q; want %q", c.tool, failed, text, want)
			}
		})
	}
}

// doJSON sends body to url with hc and returns the status and, for an
// answer other than 2xx, its problem.
func doJSON(t *testing.T, hc *http.Client, method, url, body string) (int, struct{ Detail, Field string }) {
	t.Helper()
	var p struct{ Detail, Field string }
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode/100 != 2 {
		if err := json.Unmarshal(buf.Bytes(), &p); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, res.StatusCode, buf.Bytes(), err)
		}
	}
	return res.StatusCode, p
}
