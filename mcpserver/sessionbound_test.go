package mcpserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestHTTPSessionBound: /mcp keeps at most MaxSessionsPerToken sessions
// of one token and MaxSessions in all; opening one more closes the least
// recently used one (of the same token when it is at its own bound), whose
// next request is a 404 "session not found", while the others answer.
// Before, every initialize kept a session for 30 minutes of idleness,
// however many one token opened: 20,000 took mnemo serve from 117 MB to
// 457 MB of RSS.
func TestHTTPSessionBound(t *testing.T) {
	e := openEngine(t)
	tok, err := server.ParseTokens([]byte(`{"tokens": [
		{"name": "alice", "token": "alice-secret-1", "resources": ["res-alice"]},
		{"name": "bob", "token": "bob-secret-22", "resources": ["res-bob"]},
		{"name": "carol", "token": "carol-secret-3", "resources": ["res-carol"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Tokens: tok, Mount: map[string]func(*server.Principal) http.Handler{
		"/mcp": mcpserver.Handler(e, mcpserver.Options{MaxSessionsPerToken: 3, MaxSessions: 5}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"
	const alice, bob, carol = "alice-secret-1", "bob-secret-22", "carol-secret-3"
	type sess struct{ tok, id string }
	open := func(tok string) sess { return sess{tok, openSession(t, url, tok)} }
	check := func(step string, live, closed []sess) {
		t.Helper()
		for _, s := range live {
			if got := rpcStatus(t, url, s.tok, s.id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != http.StatusOK {
				t.Errorf("%s: session %s of %s answered %d, want 200", step, s.id, s.tok, got)
			}
		}
		for _, s := range closed {
			if got := rpcStatus(t, url, s.tok, s.id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != http.StatusNotFound {
				t.Errorf("%s: session %s of %s answered %d, want 404 (closed)", step, s.id, s.tok, got)
			}
		}
	}

	a1, a2, a3 := open(alice), open(alice), open(alice)
	// A stream open on the session to close does not hold the new one.
	stream := getStream(t, url, a1.tok, a1.id)
	check("three of alice", []sess{a3, a2}, nil) // used in the order a1, a3, a2: a1 is the least recent
	a4 := open(alice)
	stream.Body.Close()
	check("a fourth of alice", []sess{a3, a2, a4}, []sess{a1})

	b1, b2 := open(bob), open(bob) // five in all
	a5 := open(alice)              // alice at her bound: her least recent (a3) goes, not bob's
	check("a fifth of alice", []sess{b1, b2, a2, a4, a5}, []sess{a3})

	c1 := open(carol) // six in all: the least recent of any token (b1) goes
	check("carol's first", []sess{b2, a2, a4, a5, c1}, []sess{b1})

	// A session ended by its client leaves room: no other is closed.
	if got := rpcMethod(t, http.MethodDelete, url, c1.tok, c1.id, ""); got != http.StatusNoContent {
		t.Fatalf("DELETE c1: %d, want 204", got)
	}
	c2 := open(carol)
	check("after a DELETE", []sess{b2, a2, a4, a5, c2}, []sess{c1})

	// Initializes at once: once all are answered, at most the bound of
	// them is open. (Sessions named by the SDK's GetSessionID, before
	// they were connected, could not be closed: 20,000 sent 16 at a time
	// left some 11,000 open.)
	ids := make([]string, 64)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			req := rpcRequest(t, http.MethodPost, url, bob, "", initialize)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ids[i] = resp.Header.Get("Mcp-Session-Id")
			}
		})
	}
	wg.Wait()
	open200 := 0
	for i, id := range ids {
		if id == "" {
			t.Fatalf("initialize %d: no session id", i)
		}
		// A ping, which a session answers before notifications/initialized.
		if rpcStatus(t, url, bob, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`) == http.StatusOK {
			open200++
		}
	}
	if open200 > 3 {
		t.Errorf("64 initializes at once left %d sessions open, want at most 3", open200)
	}
}

// initialize is the first message of an MCP session.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"v0"}}}`

// openSession initializes an MCP session over streamable HTTP with token
// and returns its id.
func openSession(t *testing.T, url, token string) string {
	t.Helper()
	req := rpcRequest(t, http.MethodPost, url, token, "", initialize)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q %.300s", resp.StatusCode, id, body)
	}
	if got := rpcStatus(t, url, token, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); got != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d, want 202", got)
	}
	return id
}

// getStream opens the standalone SSE stream of session id and returns its
// response, headers read.
func getStream(t *testing.T, url, token, id string) *http.Response {
	t.Helper()
	req := rpcRequest(t, http.MethodGet, url, token, id, "")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	return resp
}

// rpcStatus posts body in session id with token and returns the status.
func rpcStatus(t *testing.T, url, token, id, body string) int {
	t.Helper()
	return rpcMethod(t, http.MethodPost, url, token, id, body)
}

func rpcMethod(t *testing.T, method, url, token, id, body string) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(rpcRequest(t, method, url, token, id, body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func rpcRequest(t *testing.T, method, url, token, id, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	return req
}
