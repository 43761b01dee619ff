package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// An appended tool call whose id a pending dispatch of the thread makes is
// a 409 worded as the engine's refusal: the call, the pending run, what to
// do.
func TestAppendDispatchPending(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "email carol")
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "send_email", Arguments: json.RawMessage(`{"to":"carol"}`)}}}
	if _, err := h.e.BeginDispatch(context.Background(), engine.DispatchIntent{RunID: "run-1", ThreadID: "t-bob", ResourceID: "res-bob",
		Message: call}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"resourceId": "res-bob", "messages": []map[string]any{
		{"role": "assistant", "toolCalls": []map[string]any{{"id": "call_0", "name": "send_email", "arguments": map[string]any{"to": "dave"}}}}}}
	r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, body)
	if r.status != 409 {
		t.Fatalf("status %d, want 409: %s", r.status, r.body)
	}
	p := r.problem(t)
	if p.Type != server.ProblemTypeBase+"conflict" || p.Field != "messages[0].toolCalls" ||
		!strings.Contains(p.Detail, `call "call_0"`) || !strings.Contains(p.Detail, `run "run-1"`) || !strings.Contains(p.Detail, "settle it first") {
		t.Fatalf("problem %+v", p)
	}
	h.validate("POST", "/v1/threads/{thread}/messages", r)
}
