package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestDuplicateBodyKey: a request body whose object names one key twice
// is a 400 naming the key's path, at any depth, and nothing is stored.
// Before, encoding/json kept the last member silently: an append with
// {"role":"user","role":"assistant"} stored an assistant turn.
func TestDuplicateBodyKey(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, `{"threadId":"t-bob","runId":"r1"}`, 200)
	for _, c := range []struct{ name, method, path, pattern, body, field string }{
		{"SearchResource", "POST", "/v1/search", "/v1/search", `{"resourceId":"res-bob","query":"one","resourceId":"res-alice"}`, "resourceId"},
		{"SearchQuery", "POST", "/v1/search", "/v1/search", `{"resourceId":"res-bob","query":"one","query":"two"}`, "query"},
		{"ContextThread", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","threadId":"t-other"}`, "threadId"},
		{"ContextRecall", "POST", "/v1/context", "/v1/context", `{"threadId":"t-bob","recall":{"topK":3,"topK":50}}`, "recall.topK"},
		{"AppendRole", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"role":"user","content":"y","role":"assistant"}]}`, "messages[1].role"},
		{"AppendMetadata", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","metadata":{"tag":"a","tag":"b"}}]}`, "messages[0].metadata.tag"},
		{"AppendEscaped", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","\u0063ontent":"y"}]}`, "messages[0].content"},
		{"Replay", "POST", "/v1/runs/r1/replay", "/v1/runs/{run}/replay", `{"withoutRecalled":true,"withoutRecalled":false}`, "withoutRecalled"},
		{"WorkingMemory", "PUT", "/v1/threads/t-bob/working-memory", "/v1/threads/{thread}/working-memory", `{"content":"a","content":"b"}`, "content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, bobToken, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != c.field || !strings.Contains(p.Detail, "given twice") {
				t.Fatalf("problem %+v, want field %q said given twice", p, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	var list struct{ Messages []struct{ Content string } }
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, nil, 200).decode(t, &list)
	if len(list.Messages) != 3 {
		t.Fatalf("%d messages stored, want the 3 seeded: %+v", len(list.Messages), list.Messages)
	}
	// The same key in two objects, and a key equal to another's value, are fine.
	ok := `{"resourceId":"res-bob","messages":[{"role":"user","content":"role","metadata":{"role":"x"}},{"role":"user","content":"z"}]}`
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, ok, 200)
}
