package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestTombstonePrefixRefused: a write that would store something under an
// id beginning with "erased-" (the prefix of erasure's tombstones) is a
// 400 naming the input that carried it, saying the rule and that the id
// begins with the reserved prefix; it was stored (a thread "erased-x"
// whose runs DELETE then did not find).
func TestTombstonePrefixRefused(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one")
	user := []map[string]any{{"role": "user", "content": "x"}}
	for _, c := range []struct {
		name, token, path, pattern string
		body                       map[string]any
		field, id                  string
	}{
		{"AppendThread", bobToken, "/v1/threads/erased-x/messages", "/v1/threads/{thread}/messages",
			map[string]any{"resourceId": "res-bob", "messages": user}, "thread", "erased-x"},
		{"AppendResource", opsToken, "/v1/threads/t-new/messages", "/v1/threads/{thread}/messages",
			map[string]any{"resourceId": "erased-r", "messages": user}, "resourceId", "erased-r"},
		{"AppendMessage", bobToken, "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages",
			map[string]any{"messages": []map[string]any{{"id": "erased-m", "role": "user", "content": "x"}}}, "messages[0].id", "erased-m"},
		{"ContextNewThread", bobToken, "/v1/context", "/v1/context",
			map[string]any{"threadId": "erased-x", "resourceId": "res-bob"}, "threadId", "erased-x"},
		{"ContextRun", bobToken, "/v1/context", "/v1/context",
			map[string]any{"threadId": "t-bob", "runId": "erased-run"}, "runId", "erased-run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", c.path, c.token, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			want := `not beginning with "erased-" (reserved for erased owners); got "` + c.id + `", which begins with the reserved prefix "erased-"`
			if p := r.problem(t); p.Field != c.field || !strings.Contains(p.Detail, want) {
				t.Fatalf("problem %+v, want field %q saying %q", p, c.field, want)
			}
			h.validate("POST", c.pattern, r)
		})
	}
	if _, err := h.e.GetThread(context.Background(), "erased-x"); err == nil {
		t.Error("thread erased-x stored")
	}
}
