package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestReadToolCallsNotJSON: an assistant message whose stored tool_calls
// is not a JSON array of calls (a row written outside mnemo: an import by
// SQL, a hand-made fix) is read as making no call, on SQLite and Postgres,
// as message_calls' triggers read it, and fails no read of its thread:
// Messages, MessagesPage, LoadContext, Replay, SearchMessages and
// SearchPreviews answer, and the messages around it read as stored.
// Reading it was an error naming it ("decode tool calls of …"), which
// every one of those reads stopped at.
func TestReadToolCallsNotJSON(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.NewStore(t).Config(engine.Config{})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msgs := []engine.Message{
			{Role: "user", Content: "the weather in Porto and Lisbon?"},
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Porto"}`)}}},
			{Role: "tool", ToolCallID: "call-1", Content: "sunny"},
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call-2", Name: "lookup", Arguments: json.RawMessage(`{"city":"Lisbon"}`)}}},
			{Role: "user", Content: "thanks"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		tamper(t, cfg, `UPDATE messages SET tool_calls = 'not JSON {' WHERE tool_calls LIKE '%call-2%'`)
		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		got, err := e.Messages(ctx, "t", 1, 100)
		if err != nil {
			t.Fatalf("Messages: %v", err)
		}
		if len(got) != 5 || got[3].ToolCalls != nil || len(got[1].ToolCalls) != 1 || got[1].ToolCalls[0].ID != "call-1" {
			t.Fatalf("Messages = %+v, want 5, the 4th with no call, the 2nd's call-1 kept", got)
		}
		if page, err := e.MessagesPage(ctx, "t", engine.PageRequest{}); err != nil || len(page.Messages) != 5 {
			t.Errorf("MessagesPage: %+v, %v; want 5 messages", page, err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", ResourceID: "r", Query: "Lisbon"})
		if err != nil {
			t.Fatalf("LoadContext: %v", err)
		}
		if len(c.Messages) == 0 {
			t.Errorf("LoadContext gave no message")
		}
		if _, err := e.Replay(ctx, "run-1", engine.ReplayOptions{}); err != nil {
			t.Errorf("Replay: %v", err)
		}
		req := engine.SearchRequest{ResourceID: "r", Query: "Lisbon"}
		if res, err := e.SearchMessages(ctx, req); err != nil || len(res.Hits) == 0 {
			t.Errorf("SearchMessages: %+v, %v; want hits", res, err)
		}
		if res, err := e.SearchPreviews(ctx, req); err != nil || len(res.Hits) == 0 {
			t.Errorf("SearchPreviews: %+v, %v; want hits", res, err)
		}
	})
}
