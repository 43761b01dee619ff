package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestContextDefaultResource: POST /v1/context on a new thread without
// resourceId composes the context of the token's only resource, as the MCP
// tool memory_context does (server.Tenant.DefaultResource), and records
// its run under that resource; for an operator (no only resource) it stays
// the 404 of an unknown thread, and another tenant's thread answers 404.
// Before, a new thread needed resourceId in the API alone.
func TestContextDefaultResource(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "bob's first turn")
	cases := []struct {
		name, token, thread string
		status              int
		resource            string // of the run's record
	}{
		{"NewThreadOnlyResource", aliceToken, "t-alice-new", 200, "res-alice"},
		{"StoredThread", bobToken, "t-bob", 200, "res-bob"},
		{"StoredThreadOperator", opsToken, "t-bob", 200, "res-bob"},
		{"ErrNewThreadOperator", opsToken, "t-ops-new", 404, ""},
		{"ErrForeignThread", aliceToken, "t-bob", 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", "/v1/context", c.token, map[string]any{"threadId": c.thread})
			if got, want := r.status, c.status; got != want {
				t.Fatalf("status %d, want %d: %.300s", got, want, r.body)
			}
			h.validate("POST", "/v1/context", r)
			if c.status != 200 {
				if p := r.problem(t); p.Type != server.ProblemTypeBase+"not-found" {
					t.Fatalf("problem %+v, want not-found", p)
				}
				return
			}
			var res server.Context
			r.decode(t, &res)
			if res.MemCtx == nil {
				t.Fatal("no memctx record")
			}
			if got, want := res.MemCtx.ResourceID, c.resource; got != want {
				t.Fatalf("run of %s, want %s", got, want)
			}
		})
	}
}
