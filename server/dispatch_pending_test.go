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
		!strings.Contains(p.Detail, `call "call_0"`) || !strings.Contains(p.Detail, `run "run-1"`) {
		t.Fatalf("problem %+v", p)
	}
	// walk43 F6: the detail told an API client to call SettleDispatch, a
	// Go call it has no route for; it says what the client can do.
	want := `answer the pending call first with a tool message {"role":"tool","toolCallId":"call_0","content":…} holding its outcome ` +
		`(earlier in this append, or in one before it), or give the new call another id`
	if !strings.HasSuffix(p.Detail, want) || strings.Contains(p.Detail, "SettleDispatch") {
		t.Errorf("detail %q, want it to end %q and not name SettleDispatch", p.Detail, want)
	}
	h.validate("POST", "/v1/threads/{thread}/messages", r)
}

// The dispatch journal's refusals (BeginDispatch, SettleDispatch) are
// described, for a caller of Describe such as an MCP tool, as 409
// conflicts naming the field at fault with the engine's wording, and an
// unknown dispatch as not found.
func TestDescribeDispatchRefusals(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true, server.Config{})
	call := engine.Message{ID: "m-call", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "send_email", Arguments: json.RawMessage(`{"to":"carol"}`)}}}
	begin := func(run string) error {
		_, err := h.e.BeginDispatch(ctx, engine.DispatchIntent{RunID: run, ThreadID: "t-bob", ResourceID: "res-bob", Message: call})
		return err
	}
	if err := begin("run-1"); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, status int, field, detail string) {
		t.Helper()
		p := server.Describe(err)
		if p.Status != status || p.Field != field || !strings.Contains(p.Detail, detail) || strings.HasPrefix(p.Detail, "engine:") {
			t.Fatalf("%s: %+v (from %v), want %d, field %q, detail with %q", what, p, err, status, field, detail)
		}
	}
	check("a second run's dispatch of a pending call", begin("run-2"), 409, "callId", `already dispatched by run "run-1"`)
	settle := func(run, result string) error {
		_, err := h.e.SettleDispatch(ctx, engine.Settlement{RunID: run, ResourceID: "res-bob", CallID: "call_0", Result: result})
		return err
	}
	check("an unknown dispatch", settle("run-9", "x"), 404, "", "dispatch not found")
	plain := engine.Message{ID: "m-plain", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
	if _, err := h.e.Append(ctx, engine.AppendRequest{ThreadID: "t-bob", ResourceID: "res-bob", Messages: []engine.Message{plain}}); err != nil {
		t.Fatal(err)
	}
	check("a settlement of an answered call", settle("run-1", "sent"), 409, "callId", `answered by tool message "m-plain"`)
	if _, err := h.e.DeleteMessages(ctx, "m-plain"); err != nil {
		t.Fatal(err)
	}
	check("a settlement of an erased dispatch", settle("run-1", "sent"), 409, "runId", "was erased")
}

// An appended tool call whose id an unanswered call of the thread makes
// (two loops on one thread, call_0 in each) is a 409 naming the new call's
// field, worded as the engine's refusal: the unanswered call's seq and
// what to do.
func TestAppendCallOpen(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "weather in Lyon and Oslo")
	call := func(city string) map[string]any {
		return map[string]any{"role": "assistant", "toolCalls": []map[string]any{{"id": "call_0", "name": "weather", "arguments": map[string]any{"city": city}}}}
	}
	first := map[string]any{"resourceId": "res-bob", "messages": []map[string]any{call("Lyon")}}
	if r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, first); r.status != 200 && r.status != 201 {
		t.Fatalf("first call: status %d: %s", r.status, r.body)
	}
	second := map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"role": "user", "content": "and Oslo?"}, call("Oslo")}}
	r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, second)
	if r.status != 409 {
		t.Fatalf("status %d, want 409: %s", r.status, r.body)
	}
	p := r.problem(t)
	if p.Type != server.ProblemTypeBase+"conflict" || p.Field != "messages[1].toolCalls[0].id" ||
		!strings.Contains(p.Detail, `call "call_0"`) || !strings.Contains(p.Detail, "seq 2") || !strings.Contains(p.Detail, "result first") {
		t.Fatalf("problem %+v", p)
	}
	h.validate("POST", "/v1/threads/{thread}/messages", r)
}
