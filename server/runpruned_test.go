package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestRunPrunedByRetention: GET /v1/runs/R/memctx and POST
// /v1/runs/R/replay of a run whose record retention.keepRuns pruned are
// a 404 that says so to a token of the run's resource; to another tenant
// it is the 404 an unknown id gets, word for word (walk58 F5: it was
// always a plain 404). After the thread's erasure (the claim's thread a
// tombstone) the run's tenant and the operator are told the thread was
// erased, as LoadContext says it (walk60 L3: it was the plain 404), and
// another tenant still gets the plain 404.
func TestRunPrunedByRetention(t *testing.T) {
	h := newHarnessOn(t, true, server.Config{}, engine.Config{
		WorkingMemory: &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread},
		Retention:     journal.Retention{KeepRuns: 1},
	})
	h.seed("t-bob", "res-bob", bobToken, "bob plans the orchard")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-old"}, 200)
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-new"}, 200)
	pruned := `run not found: "run-old": ` + journal.RunPrunedDetail
	plain := `run not found: "run-old"`
	check := func(token, want string) {
		t.Helper()
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/runs/run-old/memctx"},
			{"POST", "/v1/runs/run-old/replay"},
		} {
			var body any
			if c.method == "POST" {
				body = map[string]any{}
			}
			r := h.do(c.method, c.path, token, body)
			if p := r.problem(t); r.status != 404 || p.Detail != want {
				t.Errorf("%s %s: %d %q, want 404 %q", c.method, c.path, r.status, p.Detail, want)
			}
		}
	}
	check(bobToken, pruned)
	check(aliceToken, plain)
	check(opsToken, pruned)
	if r := h.do("GET", "/v1/runs/nosuch/memctx", aliceToken, nil); r.problem(t).Detail != `run not found: "nosuch"` {
		t.Errorf("unknown run: %q", r.problem(t).Detail)
	}
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-bob", opsToken, nil, 200)
	erased := `run not found: "run-old": the run id's thread was erased`
	check(bobToken, erased)
	check(aliceToken, plain)
	check(opsToken, erased)
}

// TestRunDispatchedOnly: GET /v1/runs/R/memctx and POST
// /v1/runs/R/replay of a run that dispatched a call without loading a
// context (no memctx record) tell the run's tenant and the operator that
// it has none, why, and what it dispatched, as mnemo memctx says it; the
// memctx resource of MCP says the same (small64: the 404 said only that
// its record "was pruned by retention, lost …, or never written (only its
// tool calls were handled)", and named no dispatch). Another tenant gets
// the plain 404.
func TestRunDispatchedOnly(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "pay the invoice")
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "charge_card", Arguments: json.RawMessage(`{"amount":5}`)}}}
	if _, err := h.e.BeginDispatch(context.Background(), engine.DispatchIntent{RunID: "run-d", ThreadID: "t-bob", ResourceID: "res-bob", Message: call}); err != nil {
		t.Fatal(err)
	}
	told := `run not found: "run-d": ` + journal.RunDispatchedDetail + `; it holds 1 dispatch: call "call_0" of charge_card, pending (its outcome is unknown; begun 20`
	for _, c := range []struct{ who, token, want string }{
		{"bob", bobToken, told}, {"ops", opsToken, told}, {"alice", aliceToken, `run not found: "run-d"`},
	} {
		for _, r := range []response{h.do("GET", "/v1/runs/run-d/memctx", c.token, nil), h.do("POST", "/v1/runs/run-d/replay", c.token, map[string]any{})} {
			p := r.problem(t)
			if r.status != 404 || !strings.HasPrefix(p.Detail, c.want) || (c.want != told && p.Detail != c.want) {
				t.Errorf("%s: %d %q, want 404 %q", c.who, r.status, p.Detail, c.want)
			}
		}
	}
}
