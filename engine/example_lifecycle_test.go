package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// docs/operations.md, "Retention and quotas": a public chat expires after 30 idle
// minutes, everything else after a day, and a resource keeps at most 3
// messages (the least recently active other thread goes first).
func ExampleEngine_Expire() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mnemo-example-")
	defer os.RemoveAll(dir)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	e, _ := engine.Open(ctx, engine.Config{Dir: dir, Now: clock, Embedder: recall.HashEmbedder{},
		Lifecycle: engine.Lifecycle{
			IdleTTL: 24 * time.Hour,
			Quota:   engine.Quota{ResourceMessages: 3},
		}})
	defer e.Close()
	say := func(thread, text string) *engine.AppendResult {
		res, _ := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "ana",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: text}}})
		return res
	}
	say("lobby", "hi all")
	e.SetIdleTTL(ctx, "lobby", "ana", 30*time.Minute) // a public chat
	say("direct", "my order number is 1234")

	now = now.Add(31 * time.Minute)
	res, _ := e.Expire(ctx, engine.ExpireRequest{})
	for _, t := range res.Threads {
		fmt.Println("expired:", t.ThreadID, t.Reason)
	}

	say("direct", "any news?")
	say("support", "I need help")
	r := say("support", "hello?") // 4 messages > 3: evict the least recently active other thread
	fmt.Println("evicted:", r.Evicted)
	// Output:
	// expired: lobby expired
	// evicted: [direct]
}

// docs/working-memory.md, "Side-effecting tools": the intent is committed before the
// action, the result after; a crash in between leaves an unknown outcome
// that the next LoadContext shows as such.
func ExampleEngine_BeginDispatch() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mnemo-example-")
	defer os.RemoveAll(dir)
	e, _ := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	defer e.Close()

	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_1", Name: "charge_card", Arguments: json.RawMessage(`{"amount":4200}`)}}}
	d, _ := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-1", ThreadID: "order-7", ResourceID: "ana", Message: call})
	// ... the process dies here, before charging or before SettleDispatch ...

	c, _ := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "order-7", ResourceID: "ana"})
	last := c.Messages[len(c.Messages)-1]
	fmt.Println(last.Role, last.ToolCallID, last.Reason)
	fmt.Println(c.MemCtx.Unsettled[0].Reason, c.MemCtx.Unsettled[0].ToolCallID)
	us, _ := e.Unsettled(ctx, "order-7", "ana")
	fmt.Println("unsettled:", len(us), us[0].Name)

	// After checking with the payment provider:
	e.SettleDispatch(ctx, engine.Settlement{RunID: "run-1", ResourceID: "ana", CallID: d.CallID, Result: `{"charged":true}`})
	c, _ = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-3", ThreadID: "order-7", ResourceID: "ana"})
	fmt.Println(c.Messages[len(c.Messages)-1].Content)
	// Output:
	// tool call_1 unsettled
	// unsettled call_1
	// unsettled: 1 charge_card
	// {"charged":true}
}
