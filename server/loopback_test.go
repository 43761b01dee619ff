package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.want)
			}
			switch {
			case c.want != 403:
			case c.host != "":
				checkRefusal(t, answer, "host-refused", "Request addressed to a host this server does not answer")
			default:
				checkRefusal(t, answer, "cross-origin", "Cross-origin browser request refused")
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

// TestLoopbackCrossOriginWrite: a server without a token file takes a
// write from a browser only from a page of its own origin. A page of
// another loopback origin (http://localhost:3000, any local web app)
// posted a body without a Content-Type, a simple request that no CORS
// preflight stops, and appended to any resource (200) or, with DELETE
// preflighted, tried to. A client that is no browser sends no Origin and
// no Sec-Fetch-Site, and writes; a read from another loopback origin is
// still answered (its page cannot read it without CORS, which mnemo does
// not send); a token file lifts the check (the bearer header forces the
// preflight).
func TestLoopbackCrossOriginWrite(t *testing.T) {
	const body = `{"resourceId":"r","messages":[{"role":"user","content":"planted"}]}`
	for _, c := range []struct {
		name, method, path, origin, site string
		tokens                           bool
		want                             int
	}{
		{"NoBrowser", "POST", "/v1/threads/t/messages", "", "", false, 200},
		{"SameOrigin", "POST", "/v1/threads/t/messages", "SELF", "same-origin", false, 200},
		{"SameOriginNoFetchMetadata", "POST", "/v1/threads/t/messages", "SELF", "", false, 200},
		{"OtherLoopbackPort", "POST", "/v1/threads/t/messages", "http://localhost:3000", "cross-site", false, 403},
		{"OtherLoopbackPortNoFetchMetadata", "POST", "/v1/threads/t/messages", "http://127.0.0.1:3000", "", false, 403},
		{"SameSite", "POST", "/v1/search", "http://localhost:3000", "same-site", false, 403},
		{"FetchMetadataOnly", "POST", "/v1/threads/t/messages", "", "cross-site", false, 403},
		{"Delete", "DELETE", "/v1/resources/r", "http://localhost:3000", "cross-site", false, 403},
		{"Read", "GET", "/v1/threads", "http://localhost:3000", "cross-site", false, 200},
		{"Tokens", "POST", "/v1/threads/t/messages", "http://localhost:3000", "cross-site", true, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.tokens, server.Config{})
			var rd io.Reader
			if c.method == "POST" {
				b := body
				if c.path == "/v1/search" {
					b = `{"resourceId":"r","query":"planted"}`
				}
				if c.tokens {
					b = strings.Replace(b, `"r"`, `"res-bob"`, 1)
				}
				rd = strings.NewReader(b)
			}
			req, err := http.NewRequest(c.method, h.ts.URL+c.path, rd)
			if err != nil {
				t.Fatal(err)
			}
			switch c.origin {
			case "":
			case "SELF":
				req.Header.Set("Origin", h.ts.URL)
			default:
				req.Header.Set("Origin", c.origin)
			}
			if c.site != "" {
				req.Header.Set("Sec-Fetch-Site", c.site)
			}
			if c.tokens {
				req.Header.Set("Authorization", "Bearer "+bobToken)
			}
			resp, err := h.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, answer)
			}
			if c.want == 403 && !strings.Contains(string(answer), "no browser page of another origin than its own") {
				t.Fatalf("answer %s does not say why", answer)
			}
			if c.want == 403 {
				checkRefusal(t, answer, "cross-origin", "Cross-origin browser request refused")
			}
		})
	}
}

// checkRefusal checks the problem of a tokenless server's refusal: its
// type and title say what was refused, and neither its title nor its
// detail names a token (they were titled "The token does not allow this
// operation", on a server that has none).
func checkRefusal(t *testing.T, answer []byte, slug, title string) {
	t.Helper()
	var p server.Problem
	if err := json.Unmarshal(answer, &p); err != nil {
		t.Fatalf("answer %s: %v", answer, err)
	}
	if p.Type != server.ProblemTypeBase+slug || p.Title != title {
		t.Errorf("type %q, title %q; want %q, %q", p.Type, p.Title, server.ProblemTypeBase+slug, title)
	}
	if slug == "cross-origin" && (strings.Contains(p.Title, "token") || strings.Contains(p.Detail, "token")) {
		t.Errorf("title %q, detail %q name a token", p.Title, p.Detail)
	}
}
