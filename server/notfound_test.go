package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestNotFoundWording: a 404's detail is worded as the CLI's (`run not
// found: "ID"`, as `thread not found: "T"`), for what exists nowhere and,
// alike, for what another tenant holds: it names only the kind and the id
// the request gave. The API said `run "ID" not found` where mnemo memctx
// said `run not found: "ID"`.
func TestNotFoundWording(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "bob secret plans: buy the orchard")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-bob"}, 200)
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/v1/runs/nosuch/memctx", `run not found: "nosuch"`},
		{"GET", "/v1/runs/run-bob/memctx", `run not found: "run-bob"`},
		{"GET", "/v1/threads/nosuch", `thread not found: "nosuch"`},
		{"GET", "/v1/threads/t-bob/messages", `thread not found: "t-bob"`},
		{"GET", "/v1/resources/res-bob/working-memory", `resource not found: "res-bob"`},
		{"DELETE", "/v1/messages/nosuch", `message not found: "nosuch"`},
	} {
		t.Run(c.method+c.path, func(t *testing.T) {
			r := h.do(c.method, c.path, aliceToken, nil)
			if p := r.problem(t); r.status != 404 || p.Detail != c.want {
				t.Errorf("%s %s as alice: %d %q, want 404 %q", c.method, c.path, r.status, p.Detail, c.want)
			}
		})
	}
}
