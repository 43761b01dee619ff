package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestAccessLogUnmatched: every request leaves exactly one access-log
// line, those no route takes too (an unknown path, a method the path does
// not take, a refused Host or Origin of a server without a token file, a
// path the mux redirects to its cleaned form), under the route "-". Before,
// those left none: a scan of paths, or a rebinding page's refused requests,
// went unseen in the log and the metrics.
//
// The path logged is the path as sent, escaped (raw, when set, is the
// request's escaped path): /v1/threads/a%2Fb was logged /v1/threads/a/b,
// a path of another route.
func TestAccessLogUnmatched(t *testing.T) {
	for _, c := range []struct {
		name, method, path, raw, host string
		tokens                        bool
		status                        int
		route                         string
	}{
		{"UnknownPath", "GET", "/.env", "", "", true, 404, "-"},
		{"Method", "PATCH", "/v1/threads", "", "", true, 405, "-"},
		{"ReboundHost", "GET", "/v1/threads", "", "evil.example:7077", false, 403, "-"},
		{"UncleanPath", "GET", "//v1/threads", "", "", true, 400, "-"},
		{"Route", "GET", "/v1/threads", "", "", true, 200, "GET /v1/threads"},
		{"RouteNoTokenFile", "GET", "/v1/threads", "", "", false, 200, "GET /v1/threads"},
		{"EscapedSlash", "GET", "/v1/threads/a/b", "/v1/threads/a%2Fb", "", true, 400, "GET /v1/threads/{thread}"},
		{"EscapedSpace", "GET", "/v1/threads/a b/messages", "/v1/threads/a%20b/messages", "", true, 400, "GET /v1/threads/{thread}/messages"},
		{"EscapedUnknown", "GET", "/x/y", "/x%2Fy", "", true, 404, "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.tokens, server.Config{})
			req, err := http.NewRequest(c.method, h.ts.URL+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path, req.URL.RawPath = c.path, c.raw
			if c.host != "" {
				req.Host = c.host
			}
			if c.tokens {
				req.Header.Set("Authorization", "Bearer "+bobToken)
			}
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
				var line struct {
					Msg, Method, Route, Path, Token string
					Status                          int
				}
				if json.Unmarshal([]byte(l), &line) != nil || line.Msg != "http" {
					continue
				}
				lines = append(lines, l)
				want := c.path
				if c.raw != "" {
					want = c.raw
				}
				if line.Method != c.method || line.Route != c.route || line.Path != want || line.Status != c.status {
					t.Errorf("logged %s, want method %s, route %q, path %s, status %d", l, c.method, c.route, want, c.status)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%d access-log lines, want 1:\n%s", len(lines), h.logs.String())
			}
		})
	}
}
