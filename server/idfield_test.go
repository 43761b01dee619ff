package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestInvalidIDField: an invalid thread id is a 400 naming the input that
// carried it: "threadId" in a body or query parameter, "thread" in a
// path. Before, every one said "thread", which names nothing in a body.
func TestInvalidIDField(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one")
	for _, c := range []struct{ name, method, path, pattern, body, field string }{
		{"Context", "POST", "/v1/context", "/v1/context", `{"threadId":"bad!","query":"one"}`, "threadId"},
		{"Search", "POST", "/v1/search", "/v1/search", `{"resourceId":"res-bob","threadId":"bad!","query":"one"}`, "threadId"},
		{"Runs", "GET", "/v1/runs?threadId=bad!", "/v1/runs", "", "threadId"},
		{"Path", "POST", "/v1/threads/bad!/messages", "/v1/threads/{thread}/messages", `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"}]}`, "thread"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := h.do(c.method, c.path, bobToken, body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			if p := r.problem(t); p.Field != c.field {
				t.Fatalf("problem %+v, want field %q", p, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
}
