package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestRefusalHeaders: an authentication refusal, 401 (no token, a wrong
// one) or 429 (past the failed-token limit), carries the same headers on
// the API, the MCP endpoint and the inspector, mounted as mnemo serve
// mounts them: Cache-Control: no-store, X-Content-Type-Options: nosniff,
// and on a 401 the RFC 6750 challenge, Bearer realm="mnemo", with
// error="invalid_token" when a bearer token was sent (none without one,
// RFC 6750 section 3). Before, the /mcp and /v1 refusals had no
// Cache-Control and the challenge no error code.
func TestRefusalHeaders(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 4, 22, 0, 0, 0, time.UTC)}
	l, _ := newLimiter(t, clk, server.AuthLimitOptions{Burst: 3})
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The mounts are made on the harness's engine at their first request
	// (a refused request makes none).
	var h *harness
	mount := func(make func() func(*server.Principal) http.Handler) func(*server.Principal) http.Handler {
		return func(p *server.Principal) http.Handler { return make()(p) }
	}
	h = newHarness(t, true, server.Config{AuthLimiter: l, Sessions: sessions, CookieMount: "/ui/", LoginPath: inspector.LoginPath,
		Mount: map[string]func(*server.Principal) http.Handler{
			"/mcp": mount(func() func(*server.Principal) http.Handler {
				return mcpserver.Handler(h.e, mcpserver.Options{Logger: discardLogger()})
			}),
			"/ui/": mount(func() func(*server.Principal) http.Handler {
				return inspector.Handler(h.e, inspector.Options{Logger: discardLogger()})
			}),
		}})
	const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	requests := []struct{ method, path, body string }{
		{"GET", "/v1/threads", ""},
		{"POST", "/mcp", mcpInit},
		{"GET", "/ui/threads", ""},
	}
	check := func(what string, req *http.Request, status int, challenge string) {
		t.Helper()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header
		if resp.StatusCode != status || got.Get("Cache-Control") != "no-store" || got.Get("X-Content-Type-Options") != "nosniff" || got.Get("WWW-Authenticate") != challenge {
			t.Errorf("%s %s (%s): %d, Cache-Control %q, X-Content-Type-Options %q, WWW-Authenticate %q; want %d, no-store, nosniff, %q",
				req.Method, req.URL.Path, what, resp.StatusCode, got.Get("Cache-Control"), got.Get("X-Content-Type-Options"), got.Get("WWW-Authenticate"), status, challenge)
		}
	}
	newRequest := func(method, path, body, token string) *http.Request {
		req, err := http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req
	}
	for _, r := range requests {
		check("no token", newRequest(r.method, r.path, r.body, ""), http.StatusUnauthorized, `Bearer realm="mnemo"`)
		check("a wrong token", newRequest(r.method, r.path, r.body, "guess-"+r.path), http.StatusUnauthorized, `Bearer realm="mnemo", error="invalid_token"`)
	}
	for _, r := range requests { // 3 failures spent the burst
		check("past the limit", newRequest(r.method, r.path, r.body, aliceToken), http.StatusTooManyRequests, "")
	}
}

// TestAnswerNoStore: an authenticated answer of the API (and of /metrics)
// is sent Cache-Control: no-store and nosniff, as the refusals are (TestRefusalHeaders): it
// holds a tenant's conversations, which no cache, the browser's own
// included, should keep. Before, only the refusals and the inspector's
// pages said so. (The MCP endpoint's answers are the go-sdk's: an event
// stream, no-cache, no-transform.)
func TestAnswerNoStore(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for _, r := range []struct {
		method, path, token string
		body                any
	}{
		{"GET", "/v1/threads", aliceToken, nil},
		{"POST", "/v1/search", aliceToken, map[string]any{"query": "hello", "resourceId": "res-alice"}},
		{"GET", "/metrics", opsToken, nil},
	} {
		resp := h.do(r.method, r.path, r.token, r.body)
		if resp.status != http.StatusOK || resp.header.Get("Cache-Control") != "no-store" || resp.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: %d, Cache-Control %q, X-Content-Type-Options %q; want 200, no-store, nosniff",
				r.method, r.path, resp.status, resp.header.Get("Cache-Control"), resp.header.Get("X-Content-Type-Options"))
		}
	}
}
