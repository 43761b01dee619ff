package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestMessageOverAnswerBound: one message larger than
// Limits.MaxAnswerBytes is refused by Append, nothing stored, with a
// *ValidationError naming its largest part and the bound. Open's rule
// (MaxAnswerBytes at least MaxContentBytes) bounds the content alone, but
// a message's tool calls (up to MaxToolCalls arguments of MaxContentBytes
// each) and metadata (MaxMetadataBytes) count too: three calls of 900
// bytes under a 2,000-byte bound were stored, and then a context whose
// recent window or recall reached the message failed with
// ErrAnswerTooLarge (recentN 10 did; while it was the thread's newest
// message every request did). A message under the bound is stored and
// its thread loads.
func TestMessageOverAnswerBound(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{},
		Limits: engine.Limits{MaxContentBytes: 1000, MaxAnswerBytes: 2000}})
	args := json.RawMessage(`{"q":"` + strings.Repeat("a", 890) + `"}`)
	calls := func(n int) []engine.ToolCall {
		var cs []engine.ToolCall
		for i := range n {
			cs = append(cs, engine.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "look", Arguments: args})
		}
		return cs
	}
	big := engine.Message{Role: engine.RoleAssistant, ToolCalls: calls(3)}
	_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "look it up"}, big}})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidInput) || ve.Index != 1 || ve.Field != "toolCalls" ||
		!strings.Contains(ve.Rule, "Limits.MaxAnswerBytes (2000)") {
		t.Fatalf("Append of a message over the answer bound: %v; want a *ValidationError on messages[1].toolCalls naming Limits.MaxAnswerBytes (2000)", err)
	}
	if ms, err := e.Messages(ctx, "t", 1, 0); err == nil || len(ms) != 0 {
		t.Fatalf("after the refusal: %d messages, %v; want none stored (thread not found)", len(ms), err)
	}

	// Two calls (about 1,860 bytes as JSON) fit: stored, and the thread loads.
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "look it up"}, {Role: engine.RoleAssistant, ToolCalls: calls(2)}}}); err != nil {
		t.Fatalf("Append under the bound: %v", err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RunID: "run-1", RecentN: 1}); err != nil {
		t.Fatalf("LoadContext: %v", err)
	}
}
