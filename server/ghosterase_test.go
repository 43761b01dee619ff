package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestDeleteThreadWithRunsOnly: a context loaded on a thread id that has
// no stored thread records a run holding the query; DELETE
// /v1/threads/{id} answered 404 "thread not found" and the run stayed
// listed with its query, whoever asked. Now the DELETE erases the
// caller's runs on the id (200, runs 1), leaves another tenant's run on
// the same id, and a second DELETE, or one of an id nobody used, is 404.
func TestDeleteThreadWithRunsOnly(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{}))
		for _, c := range []struct{ token, run string }{{aliceToken, "alice-ghost-run"}, {bobToken, "bob-run-7"}} {
			h.ok("POST", "/v1/context", "/v1/context", c.token,
				map[string]any{"threadId": "ghost", "runId": c.run, "query": "my passport number is ZX9912345"}, 200)
		}
		var res struct {
			Runs    int      `json:"runs"`
			Threads []string `json:"threads"`
		}
		h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/ghost", aliceToken, nil, 200).decode(t, &res)
		if res.Runs != 1 {
			t.Errorf("erasure answer: %+v, want runs 1", res)
		}
		if r := h.do("GET", "/v1/runs/alice-ghost-run/memctx", aliceToken, nil); r.status != 404 {
			t.Errorf("alice's run after the DELETE: %d %s, want 404", r.status, r.body)
		}
		if r := h.do("GET", "/v1/runs?threadId=ghost", aliceToken, nil); r.status != 404 {
			t.Errorf("alice's runs of ghost after the DELETE: %d %s, want 404 (no thread, no run)", r.status, r.body)
		}
		if r := h.do("GET", "/v1/runs/bob-run-7/memctx", bobToken, nil); r.status != 200 {
			t.Errorf("bob's run after alice's DELETE: %d %s, want it kept", r.status, r.body)
		}
		for _, id := range []string{"ghost", "never-used"} {
			if r := h.do("DELETE", "/v1/threads/"+id, aliceToken, nil); r.status != 404 {
				t.Errorf("DELETE %s: %d %s, want 404", id, r.status, r.body)
			}
		}
		if r := h.do("DELETE", "/v1/threads/ghost", opsToken, nil); r.status != 200 {
			t.Errorf("the operator's DELETE of bob's run: %d %s, want 200", r.status, r.body)
		}
		if r := h.do("GET", "/v1/runs/bob-run-7/memctx", bobToken, nil); r.status != 404 {
			t.Errorf("bob's run after the operator's DELETE: %d %s, want 404", r.status, r.body)
		}
	})
}
