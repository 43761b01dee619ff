package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestCaseVariantMember: a body member named like a field but in another
// case ("RunID" for "runId", "Role" in a message) is a 400 naming it and
// the field's name, and nothing is stored; the MCP tools' schemas refuse
// such arguments already. Before, encoding/json matched it
// case-insensitively, so {"threadId":"t","RunID":""} generated a run id
// and {"THREADID":"t"} loaded t's context. Metadata keys and a tool
// call's arguments are data, not names: any case is kept as given.
func TestCaseVariantMember(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, `{"threadId":"t-bob","runId":"r1"}`, 200)
	for _, c := range []struct{ name, method, path, pattern, body, member, field string }{
		{"ContextThread", "POST", "/v1/context", "/v1/context", `{"THREADID":"t-bob"}`, "THREADID", "threadId"},
		{"ContextEmptyRun", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","RunID":""}`, "RunID", "runId"},
		{"ContextRecall", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","recall":{"TopK":3}}`, "recall.TopK", "topK"},
		{"ContextRange", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","recall":{"messageRange":{"Before":1,"after":1}}}`, "recall.messageRange.Before", "before"},
		{"SearchQuery", "POST", "/v1/search", "/v1/search", `{"resourceId":"res-bob","Query":"one"}`, "Query", "query"},
		{"AppendRole", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"Role":"user","content":"y"}]}`, "messages[1].Role", "role"},
		{"AppendToolCall", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f","Arguments":{}}]}]}`, "messages[0].toolCalls[0].Arguments", "arguments"},
		{"Replay", "POST", "/v1/runs/r1/replay", "/v1/runs/{run}/replay", `{"withoutrecalled":true}`, "withoutrecalled", "withoutRecalled"},
		{"WorkingMemory", "PUT", "/v1/threads/t-bob/working-memory", "/v1/threads/{thread}/working-memory", `{"Content":"a"}`, "Content", "content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, bobToken, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != c.member || !strings.Contains(p.Detail, `"`+c.field+`"`) || !strings.Contains(p.Detail, "case-sensitive") {
				t.Fatalf("problem %+v, want field %q and the name %q", p, c.member, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	var list struct{ Messages []struct{ Content string } }
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, nil, 200).decode(t, &list)
	if len(list.Messages) != 3 {
		t.Fatalf("%d messages stored, want the 3 seeded: %+v", len(list.Messages), list.Messages)
	}
	ok := `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","metadata":{"Tag":"a","tag":"b"}},{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":{"Q":1,"q":2}}]}]}`
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, ok, 200)
}
