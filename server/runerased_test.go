package server_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestRunOfErasedThreadProblem: a context request under the run id of an
// erased thread (journal.ErrRunErased) is a 409 on runId that says the
// run id's thread was erased to the run's own tenant and the operator, as
// GET /v1/runs/{run}/memctx and the engine's LoadContext say it (small64:
// it said "the run id belongs to another conversation" to the tenant who
// had erased it). Another tenant gets the answer of a run id another
// conversation holds, the same status and body as before the erasure
// (walk39 #6: it must not learn that alice's conversation was erased, nor
// when).
func TestRunOfErasedThreadProblem(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-alice", "res-alice", aliceToken, "hello")
	h.seed("t-bob", "res-bob", bobToken, "hi")
	h.ok("POST", "/v1/context", "/v1/context", aliceToken, map[string]any{"threadId": "t-alice", "runId": "run-e"}, 200)
	owned := h.do("POST", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-e"})
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-alice", aliceToken, nil, 200)
	h.seed("t-alice", "res-alice", aliceToken, "are you there?")
	want := owned.problem(t)
	if owned.status != 409 || want.Field != "runId" {
		t.Fatalf("bob before the erasure: status %d, problem %+v; want 409 on runId", owned.status, want)
	}
	r := h.do("POST", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-e"})
	if p := r.problem(t); r.status != owned.status || !reflect.DeepEqual(p, want) {
		t.Errorf("bob after the erasure: status %d, problem %+v; want %d %+v, the answer of a taken run id", r.status, p, owned.status, want)
	}
	erased := want
	erased.Detail = "the run id's thread was erased; choose another id"
	for _, c := range []struct{ who, token string }{{"alice", aliceToken}, {"ops", opsToken}} {
		r := h.do("POST", "/v1/context", c.token, map[string]any{"threadId": "t-alice", "runId": "run-e"})
		if p := r.problem(t); r.status != 409 || !reflect.DeepEqual(p, erased) {
			t.Errorf("%s after the erasure: status %d, problem %+v; want 409 %+v", c.who, r.status, p, erased)
		}
		h.validate("POST", "/v1/context", r)
	}
}
