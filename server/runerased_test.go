package server_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestRunOfErasedThreadProblem: a context request under the run id of an
// erased thread (journal.ErrRunErased) is answered as a run id another
// conversation holds (journal.ErrRunOwned), the same status and body for
// the tenant who erased it (the thread appended to again) and for another
// tenant. Before (walk39 #6), both got "the run id's conversation was
// erased; a new run needs a new id", so bob, who had been told the id
// belongs to another conversation, learnt that alice's was erased, and
// when.
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
	for _, c := range []struct{ who, token, thread string }{{"bob", bobToken, "t-bob"}, {"alice", aliceToken, "t-alice"}} {
		r := h.do("POST", "/v1/context", c.token, map[string]any{"threadId": c.thread, "runId": "run-e"})
		if p := r.problem(t); r.status != owned.status || !reflect.DeepEqual(p, want) {
			t.Errorf("%s after the erasure: status %d, problem %+v; want %d %+v, the answer of a taken run id", c.who, r.status, p, owned.status, want)
		}
	}
}
