package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestEmptyBodyID: a request body giving an id member as "" is a 400
// naming it, as ?resourceId= is and the MCP tools' arguments are. Before,
// "" was read as left out: {"threadId":""} in a search searched the whole
// resource, {"runId":""} in a context generated a run id, and an append's
// {"id":""} message got a ULID, as one with the id left out does.
func TestEmptyBodyID(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	for _, c := range []struct{ name, method, path, pattern, body, field string }{
		{"SearchThread", "POST", "/v1/search", "/v1/search", `{"resourceId":"res-bob","query":"one","threadId":""}`, "threadId"},
		{"SearchResource", "POST", "/v1/search", "/v1/search", `{"resourceId":"","query":"one"}`, "resourceId"},
		{"ContextResource", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","resourceId":""}`, "resourceId"},
		{"ContextRun", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","runId":""}`, "runId"},
		{"AppendResource", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"","messages":[{"role":"user","content":"x"}]}`, "resourceId"},
		// a message id "" was read as left out: a ULID was made
		{"AppendMessageID", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"messages":[{"role":"user","content":"x","id":"m1"},{"role":"user","content":"y","id":""}]}`, "messages[1].id"},
		{"AppendMessageIDSpaced", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"messages":[ { "id" : "" , "role":"user","content":"x"}]}`, "messages[0].id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, bobToken, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != c.field || !strings.Contains(p.Detail, c.field+" is empty") {
				t.Fatalf("problem %+v, want field %q said empty", p, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	if r := h.do("POST", "/v1/search", bobToken, `{"resourceId":"res-bob","query":"one"}`); r.status != 200 {
		t.Fatalf("the ids left out: status %d: %.300s", r.status, r.body)
	}
	r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, `{"messages":[{"role":"user","content":"four"}]}`)
	var res server.AppendResult
	if r.status != 200 || json.Unmarshal(r.body, &res) != nil || len(res.IDs) != 1 || res.IDs[0] == "" {
		t.Fatalf("a message id left out: status %d, %.300s; want 200 and a generated id", r.status, r.body)
	}
}
