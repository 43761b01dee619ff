package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

func TestLoadContextRecentWindowAfterReopen(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		e, err := engine.Open(ctx, st.Config(engine.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		const n = 1000
		var batch []engine.Message
		for i := 1; i <= n; i++ {
			role := engine.RoleUser
			if i%2 == 0 {
				role = engine.RoleAssistant
			}
			batch = append(batch, engine.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: fmt.Sprintf("turn %d", i)})
			if len(batch) == 250 {
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "long", ResourceID: "r", Messages: batch}); err != nil {
					t.Fatal(err)
				}
				batch = nil
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e = be.MustOpen(t, st.Config(engine.Config{}))
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "long", RecentN: 7})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(c.Messages), 7; got != want {
			t.Fatalf("%d messages, want %d", got, want)
		}
		for i, m := range c.Messages {
			if want := int64(n - 6 + i); m.Seq != want || m.Content != fmt.Sprintf("turn %d", want) {
				t.Fatalf("messages[%d] = seq %d %q, want seq %d", i, m.Seq, m.Content, want)
			}
		}
		if c.MemCtx.RecentCount != 7 || c.MemCtx.ResourceID != "r" || c.MemCtx.Query != "turn 999" {
			t.Fatalf("memctx recentCount %d resource %q query %q", c.MemCtx.RecentCount, c.MemCtx.ResourceID, c.MemCtx.Query)
		}
		stored, err := e.Journal().MemCtx(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if stored.PromptHash != c.PromptHash || stored.PromptHash == "" {
			t.Fatalf("stored promptHash %q, context %q", stored.PromptHash, c.PromptHash)
		}
		t.Run("ErrRunExists", func(t *testing.T) {
			_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "long"})
			if !errors.Is(err, journal.ErrRunExists) {
				t.Fatalf("err = %v, want ErrRunExists", err)
			}
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "long", ReplaceRun: true}); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("RecentCap", func(t *testing.T) {
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "long", RecentN: 40})
			if err != nil {
				t.Fatal(err)
			}
			if c.MemCtx.RecentCount != 40 || len(c.MemCtx.Recent) != journal.RecentCap {
				t.Fatalf("recentCount %d, listed %d; want 40, %d", c.MemCtx.RecentCount, len(c.MemCtx.Recent), journal.RecentCap)
			}
		})
		t.Run("UnknownThread", func(t *testing.T) {
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "new", ResourceID: "r"})
			if err != nil || len(c.Messages) != 0 {
				t.Fatalf("new thread: %v, %d messages", err, len(c.Messages))
			}
			if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "long", ResourceID: "other"}); !errors.Is(err, engine.ErrResourceMismatch) {
				t.Fatalf("err = %v, want ErrResourceMismatch", err)
			}
		})
	})
}

// toolThread stores: 1 user, 2 assistant calling c1 and c2, 3 tool(c1),
// 4 tool(c2), 5 assistant, 6 user.
func toolThread(t *testing.T, e *engine.Engine, thread string) {
	t.Helper()
	args := json.RawMessage(`{"crate":"A"}`)
	_, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "compare shipping quotes for crate A and crate B"},
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "quote", Arguments: args}, {ID: "c2", Name: "quote", Arguments: json.RawMessage(`{"crate":"B"}`)}}},
		{Role: "tool", ToolCallID: "c1", Name: "quote", Content: "A: 120 EUR, 4 days"},
		{Role: "tool", ToolCallID: "c2", Name: "quote", Content: "B: 95 EUR, 9 days, ref ZEPHYR-QUOTE"},
		{Role: "assistant", Content: "B is cheaper, A is faster"},
		{Role: "user", Content: "thanks"},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// checkProviderRule fails when msgs would be refused by an OpenAI-style API.
func checkProviderRule(t testing.TB, msgs []engine.ContextMessage) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == engine.RoleTool {
			t.Fatalf("messages[%d] is a tool result not preceded by its call: %+v", i, msgs)
		}
		for _, tc := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != engine.RoleTool || msgs[i].ToolCallID != tc.ID {
				t.Fatalf("call %s of messages at seq %d is not followed by its result: %+v", tc.ID, m.Seq, msgs)
			}
		}
	}
}

func seqs(msgs []engine.ContextMessage) string {
	s := ""
	for _, m := range msgs {
		s += fmt.Sprintf("%d,", m.Seq)
	}
	return s
}

func TestLoadContextPairingAtWindowEdge(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "t")
		tests := []struct {
			recent int
			seqs   string
			recCnt int
		}{
			{6, "1,2,3,4,5,6,", 6},
			{5, "2,3,4,5,6,", 5},
			// Window 4,5,6 starts with the result of c2: it extends back to the call.
			{3, "2,3,4,5,6,", 5},
			{4, "2,3,4,5,6,", 5},
			{2, "5,6,", 2},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("Recent%d", tt.recent), func(t *testing.T) {
				c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: tt.recent})
				if err != nil {
					t.Fatal(err)
				}
				checkProviderRule(t, c.Messages)
				if got := seqs(c.Messages); got != tt.seqs {
					t.Fatalf("seqs %s, want %s", got, tt.seqs)
				}
				if c.MemCtx.RecentCount != tt.recCnt || c.MemCtx.DroppedCount != 0 {
					t.Fatalf("recentCount %d dropped %d, want %d, 0", c.MemCtx.RecentCount, c.MemCtx.DroppedCount, tt.recCnt)
				}
			})
		}
		t.Run("UnpairedCallDropped", func(t *testing.T) {
			// An assistant call whose result was never stored (the agent crashed
			// mid-step) cannot be sent: it is dropped and recorded.
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{
				{Role: "user", Content: "and crate C?"},
				{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c3", Name: "quote", Arguments: json.RawMessage(`{"crate":"C"}`)}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 3})
			if err != nil {
				t.Fatal(err)
			}
			checkProviderRule(t, c.Messages)
			if got, want := seqs(c.Messages), "6,7,"; got != want {
				t.Fatalf("seqs %s, want %s", got, want)
			}
			d := c.MemCtx.Dropped
			if len(d) != 1 || d[0].Seq != 8 || d[0].Reason != journal.ReasonUnpairedToolCall || d[0].Preview != `→ quote({"crate":"C"})` {
				t.Fatalf("dropped = %+v", d)
			}
		})
	})
}

func TestContextOpenAIMessages(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "t")
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 6})
		if err != nil {
			t.Fatal(err)
		}
		om := c.OpenAIMessages("You are helpful.")
		if len(om) != 7 || om[0].Role != "system" || om[0].Content != "You are helpful." {
			t.Fatalf("messages: %+v", om)
		}
		if om[2].ToolCalls[1].Function.Arguments != `{"crate":"B"}` || om[4].ToolCallID != "c2" {
			t.Fatalf("tool calls not converted: %+v", om[2])
		}
	})
}

// TestContextOpenAIMessagesModelText: a call whose arguments were the
// model's text that held no object (stored as a JSON string,
// ToolCallArgumentsOf) goes back to the model as that text, unquoted, as
// OpenAI's function.arguments carried it, with a hidden character escaped
// as message content's are (render.Message); an object goes as its JSON
// text. Before, the model read `"call it with q=\"x\""`: its text
// quoted, its quotes escaped.
func TestContextOpenAIMessagesModelText(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "look it up"},
		{Role: "assistant", ToolCalls: []engine.ToolCall{
			{ID: "c1", Name: "find", Arguments: json.RawMessage(`"call it with q=\"x\" \u202e"`)},
			{ID: "c2", Name: "find", Arguments: json.RawMessage(`{"q":"y"}`)},
		}},
		{Role: "tool", ToolCallID: "c1", Name: "find", Content: "nothing"},
		{Role: "tool", ToolCallID: "c2", Name: "find", Content: "y found"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 4})
	if err != nil {
		t.Fatal(err)
	}
	om := c.OpenAIMessages("")
	if len(om) != 4 || len(om[1].ToolCalls) != 2 {
		t.Fatalf("messages: %+v", om)
	}
	for i, want := range []string{`call it with q="x" \u202e`, `{"q":"y"}`} {
		if got := om[1].ToolCalls[i].Function.Arguments; got != want {
			t.Errorf("call %d's arguments %q, want %q", i+1, got, want)
		}
	}
}

func TestLoadContextRetention(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Retention: journal.Retention{KeepRuns: 2}})
		toolThread(t, e, "t")
		for i := range 4 {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("run-%d", i), ThreadID: "t"}); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || runs[0].RunID != "run-3" || runs[1].RunID != "run-2" {
			t.Fatalf("kept %+v, want run-3 and run-2", runs)
		}
	})
}
