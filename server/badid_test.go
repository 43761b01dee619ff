package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestIDErrorsOneFamily: every id the API refuses, in a path, a member
// or a query parameter, on a read or a write, is one sentence of one
// form: the field as subject, the rule (with the dot-segment clause when
// the id names something new) and what the id given broke. A GET of
// /v1/threads/%ff/messages said "the thread id must be 1-128 characters
// …" where the append to it said `thread must be …, and not "." or ".."
// (…)`, and neither said what was wrong.
func TestIDErrorsOneFamily(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	const rule = "must be 1-128 characters of [A-Za-z0-9_.:@-]"
	const dots = `, and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners)`
	appendBody := `{"resourceId":"r","messages":[{"role":"user","content":"x"}]}`
	msg := func(member string) string {
		return `{"resourceId":"r","messages":[{"role":"user","content":"x",` + member + `}]}`
	}
	for _, c := range []struct {
		method, path string
		body         any
		field, want  string
	}{
		{"GET", "/v1/threads/%ff/messages", nil, "thread", "thread " + rule + "; got 0xff at byte 0, which is not UTF-8"},
		{"GET", "/v1/threads/a%ffb", nil, "thread", "thread " + rule + "; got 0xff at byte 1, which is not UTF-8"},
		{"POST", "/v1/threads/%ff/messages", appendBody, "thread", "thread " + rule + dots + "; got 0xff at byte 0, which is not UTF-8"},
		{"POST", "/v1/threads/%2e%2e/messages", appendBody, "thread", "thread " + rule + dots + `; got ".."`},
		{"GET", "/v1/threads/" + strings.Repeat("x", 129), nil, "thread", "thread " + rule + "; got an id of 129 bytes"},
		{"GET", "/v1/runs/bad%20id/memctx", nil, "run", "run " + rule + `; got " " at byte 3`},
		{"DELETE", "/v1/messages/%E2%80%AEfdp", nil, "message", "message " + rule + `; got "\u202e" at byte 0`},
		{"GET", "/v1/threads?resourceId=caf%C3%A9", nil, "resourceId", "resourceId " + rule + `; got "é" at byte 3`},
		{"POST", "/v1/threads/t/messages", `{"resourceId":"..","messages":[{"role":"user","content":"x"}]}`, "resourceId", "resourceId " + rule + dots + `; got ".."`},
		// Ids in a body that the engine checks (5220cb2 worded only the
		// server's own): `invalid runId: must be …` without what broke.
		{"POST", "/v1/context", `{"threadId":"t1","resourceId":"r","runId":"a b"}`, "runId", "runId " + rule + dots + `; got " " at byte 1`},
		{"POST", "/v1/context", `{"threadId":"..","resourceId":"r"}`, "threadId", "threadId " + rule + dots + `; got ".."`},
		// The run id of the API's own working-memory writes: a run under
		// it tied them to its thread, whose erasure took them.
		{"POST", "/v1/context", `{"threadId":"t1","resourceId":"r","runId":"mnemo-http-api"}`, "runId",
			`runId must not be "mnemo-http-api", "mnemo-mcp" or "mnemo-wm-set" (reserved: the run id of working-memory versions written outside a run, through the HTTP API, MCP or mnemo wm set); got "mnemo-http-api"`},
		{"POST", "/v1/threads/t/messages", msg(`"id":"a b"`), "messages[0].id", "messages[0].id " + rule + dots + `; got " " at byte 1`},
		{"POST", "/v1/threads/t/messages", msg(`"id":".."`), "messages[0].id", "messages[0].id " + rule + dots + `; got ".."`},
		{"POST", "/v1/threads/t/messages", `{"resourceId":"r","messages":[{"role":"assistant","toolCalls":[{"id":"c\u00e9","name":"f","arguments":"{}"}]}]}`,
			"messages[0].toolCalls[0].id", "messages[0].toolCalls[0].id " + rule + dots + `; got "é" at byte 1`},
		{"POST", "/v1/threads/t/messages", `{"resourceId":"r","messages":[{"role":"tool","toolCallId":"c 1","content":"x"}]}`,
			"messages[0].toolCallId", "messages[0].toolCallId " + rule + `; got " " at byte 1`},
	} {
		r := h.do(c.method, c.path, "", c.body)
		p := r.problem(t)
		if r.status != 400 || p.Field != c.field || p.Detail != c.want {
			t.Errorf("%s %s: %d field %q detail %q\nwant 400 field %q detail %q", c.method, c.path, r.status, p.Field, p.Detail, c.field, c.want)
		}
	}
}
