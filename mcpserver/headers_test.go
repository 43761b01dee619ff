package mcpserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPErrorHeaders: every refusal of /mcp, mnemo's own (a body with
// data after its message, one nested too deep) and the MCP SDK's (an
// unknown session, a method it does not take, a missing Accept), is sent
// Cache-Control: no-store and X-Content-Type-Options: nosniff, as the HTTP
// API's answers are. Before, none had Cache-Control, and the JSON-RPC
// errors of mnemo's own refusals no nosniff.
func TestHTTPErrorHeaders(t *testing.T) {
	ts := mcpHTTPServer(t, openEngine(t))
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		name, method, body, accept, session string
		status                              int
	}{
		{"TrailingData", "POST", initialize + "}", "application/json, text/event-stream", "", http.StatusBadRequest},
		{"TooDeep", "POST", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "application/json, text/event-stream", "", http.StatusBadRequest},
		{"UnknownSession", "POST", list, "application/json, text/event-stream", "no-such-session", http.StatusNotFound},
		{"Method", "PUT", list, "application/json, text/event-stream", "", http.StatusMethodNotAllowed},
		{"Accept", "POST", initialize, "text/html", "", http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, ts.URL+"/mcp", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer alice-secret-1")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", c.accept)
			if c.session != "" {
				req.Header.Set("Mcp-Session-Id", c.session)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != c.status || h.Get("Cache-Control") != "no-store" || h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%d, Cache-Control %q, X-Content-Type-Options %q (%.200s); want %d, no-store, nosniff",
					resp.StatusCode, h.Get("Cache-Control"), h.Get("X-Content-Type-Options"), b, c.status)
			}
		})
	}
}
