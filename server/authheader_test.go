package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestTwoAuthorizationHeaders: a request sending the Authorization header
// twice is a 400 naming it, on the API, on a mount (/mcp) and on the
// cookie mount (/ui/), in either order of the two tokens. Before, the
// first header won silently: alice's then bob's listed alice's threads.
func TestTwoAuthorizationHeaders(t *testing.T) {
	page := func(*server.Principal) http.Handler { return http.NotFoundHandler() }
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, true, server.Config{
		Sessions:    sessions,
		Mount:       map[string]func(*server.Principal) http.Handler{"/ui/": page, "/mcp": page},
		LoginPath:   "/ui/login",
		CookieMount: "/ui/",
	})
	h.seed("t-alice", "res-alice", aliceToken, "one")
	for _, path := range []string{"/v1/threads", "/mcp", "/ui/threads"} {
		for _, tokens := range [][2]string{{aliceToken, bobToken}, {bobToken, aliceToken}, {aliceToken, aliceToken}} {
			req, _ := http.NewRequest(http.MethodGet, h.ts.URL+path, nil)
			req.Header.Add("Authorization", "Bearer "+tokens[0])
			req.Header.Add("Authorization", "Bearer "+tokens[1])
			req.Header.Set("Accept", "text/html")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var p server.Problem
			_ = json.Unmarshal(b, &p)
			if resp.StatusCode != http.StatusBadRequest || p.Field != "Authorization" {
				t.Errorf("GET %s with two Authorization headers: %d %s; want 400, field Authorization", path, resp.StatusCode, b)
			}
		}
	}
}
