package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestRunOfErasedThreadProblem: a context request under the run id of a
// thread the tenant erased (the thread appended to again) is a 409 on
// runId that says the run's conversation was erased, not that the run
// belongs to another conversation (journal.ErrRunErased).
func TestRunOfErasedThreadProblem(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-alice", "res-alice", aliceToken, "hello")
	h.ok("POST", "/v1/context", "/v1/context", aliceToken, map[string]any{"threadId": "t-alice", "runId": "run-e"}, 200)
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-alice", aliceToken, nil, 200)
	h.seed("t-alice", "res-alice", aliceToken, "are you there?")
	r := h.do("POST", "/v1/context", aliceToken, map[string]any{"threadId": "t-alice", "runId": "run-e"})
	p := r.problem(t)
	if r.status != 409 || p.Field != "runId" || !strings.Contains(p.Detail, "was erased") || strings.Contains(p.Detail, "another conversation") {
		t.Fatalf("status %d, problem %+v: want 409 on runId saying the run's conversation was erased", r.status, p)
	}
}
