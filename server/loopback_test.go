package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestLoopbackHostOnly: a server without a token file answers every
// request as the operator, so it answers only requests addressed to a
// loopback host and, from a browser, a loopback origin: a page that
// rebinds its own name to 127.0.0.1 (DNS rebinding) sends that name as
// Host and Origin, and read and erased every resource's memory before. A
// token file, or Config.AnyHost, lifts the check.
func TestLoopbackHostOnly(t *testing.T) {
	for _, c := range []struct {
		name, host, origin string
		tokens, anyHost    bool
		want               int
	}{
		{"Loopback", "", "", false, false, 200},
		{"Localhost", "localhost:7077", "", false, false, 200},
		{"IPv6", "[::1]:7077", "http://[::1]:7077", false, false, 200},
		{"LocalOrigin", "", "http://localhost:3000", false, false, 200},
		{"ReboundHost", "evil.example:7077", "http://evil.example:7077", false, false, 403},
		{"ForeignOrigin", "", "https://evil.example", false, false, 403},
		{"NullOrigin", "", "null", false, false, 403},
		{"Tokens", "evil.example:7077", "http://evil.example:7077", true, false, 200},
		{"AnyHost", "evil.example:7077", "", false, true, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.tokens, server.Config{AnyHost: c.anyHost})
			req, err := http.NewRequest("GET", h.ts.URL+"/v1/threads", nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			if c.tokens {
				req.Header.Set("Authorization", "Bearer "+bobToken)
			}
			resp, err := h.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
}

// TestLoopbackNoHost: a request with no Host at all (HTTP/1.0, or the
// handler called in process, as the Postgres tests do) is not a
// browser's, so a server without a token file answers it; its Origin, if
// sent, is still checked.
func TestLoopbackNoHost(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	for _, c := range []struct {
		origin string
		want   int
	}{{"", 200}, {"http://localhost:3000", 200}, {"https://evil.example", 403}} {
		req := httptest.NewRequest("GET", "/v1/threads", nil)
		req.Host = ""
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Fatalf("no Host, Origin %q: status %d, want %d", c.origin, rec.Code, c.want)
		}
	}
}
