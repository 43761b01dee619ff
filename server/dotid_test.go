package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/server"
)

// TestDotIDsRefused: a write that would store something under the id "."
// or ".." (which no browser or JS client can put in a URL path) is a 400
// naming the input that carried it, and saying the rule.
func TestDotIDsRefused(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one")
	msg := func(id string) map[string]any {
		return map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"id": id, "role": "user", "content": "x"}}}
	}
	for _, c := range []struct {
		name, method, path, pattern string
		body                        any
		field                       string
	}{
		{"AppendThread", "POST", "/v1/threads/%2e%2e/messages", "/v1/threads/{thread}/messages", msg(""), "thread"},
		{"AppendThreadDot", "POST", "/v1/threads/%2E/messages", "/v1/threads/{thread}/messages", msg(""), "thread"},
		{"AppendResource", "POST", "/v1/threads/t-new/messages", "/v1/threads/{thread}/messages",
			map[string]any{"resourceId": ".", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId"},
		{"AppendMessage", "POST", "/v1/threads/t-bob/messages", "/v1/threads/{thread}/messages", msg(".."), "messages[0].id"},
		{"ContextRun", "POST", "/v1/context", "/v1/context", map[string]any{"threadId": "t-bob", "runId": "."}, "runId"},
		{"ThreadWM", "PUT", "/v1/threads/%2e%2e/working-memory", "/v1/threads/{thread}/working-memory", map[string]any{"content": "# User\n"}, "thread"},
		{"ResourceWM", "PUT", "/v1/resources/%2e/working-memory", "/v1/resources/{resource}/working-memory", map[string]any{"content": "# User\n"}, "resource"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := bobToken
			if c.name == "ResourceWM" || c.name == "AppendResource" {
				token = opsToken // a resource the token may touch
			}
			r := h.do(c.method, c.path, token, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			if p := r.problem(t); p.Field != c.field || !strings.Contains(p.Detail, `not "." or ".."`) {
				t.Fatalf("problem %+v, want field %q saying the rule", p, c.field)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	if _, err := h.e.GetThread(context.Background(), ".."); err == nil {
		t.Error("thread .. stored")
	}
}

// TestDotIDsStored: a thread, message and run stored under "." and ".."
// before they were refused (legacyid.Allow) are still answered by a
// client that sends the path as written (Go's net/http), and erased.
func TestDotIDsStored(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	legacyid.Allow(h.e)
	ctx := context.Background()
	if _, err := h.e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: "res-alice", Messages: []engine.Message{
		{ID: ".", Role: engine.RoleUser, Content: "dot"}, {Role: engine.RoleAssistant, Content: "dot dot"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: ".."}); err != nil {
		t.Fatal(err)
	}
	h.ok("GET", "/v1/threads/{thread}", "/v1/threads/%2e%2e", aliceToken, nil, 200)
	var page struct{ Messages []engine.Message }
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/%2e%2e/messages", aliceToken, nil, 200).decode(t, &page)
	if len(page.Messages) != 2 || page.Messages[0].ID != "." {
		t.Fatalf("messages of ..: %+v", page.Messages)
	}
	h.ok("GET", "/v1/runs/{run}/memctx", "/v1/runs/%2e/memctx", aliceToken, nil, 200)
	h.ok("DELETE", "/v1/messages/{message}", "/v1/messages/%2e", aliceToken, nil, 200)
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/%2e%2e", aliceToken, nil, 200)
	if r := h.do("GET", "/v1/threads/%2e%2e", aliceToken, nil); r.status != 404 {
		t.Fatalf("thread .. after DELETE: status %d, want 404", r.status)
	}
}
