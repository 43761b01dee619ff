package engine_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// TestMemCtxTokenFigures: the memctx record carries the estimated tokens of
// each part (recent, recalled, observations, working memory, tools) and
// their total, so a recent window that alone exceeds the token budget is
// visible (issue 19 item 8); a tool exchange counts its calls.
func TestMemCtxTokenFigures(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{RecentN: 4,
			WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)}})
		var old []engine.Message
		for i := range 6 {
			old = append(old, engine.Message{Role: engine.RoleUser, Content: "the zeppelin hangar needs paint, note " + string(rune('a'+i))},
				engine.Message{Role: engine.RoleAssistant, Content: "noted"})
		}
		args, _ := json.Marshal(map[string]string{"query": strings.Repeat("weather data ", 3100)})
		recent := []engine.Message{
			{Role: engine.RoleUser, Content: "weather in Berlin?"},
			{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "weather", Arguments: args}}},
			{Role: engine.RoleTool, ToolCallID: "call_0", Name: "weather", Content: "sunny"},
			{Role: engine.RoleAssistant, Content: "It is sunny."},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: append(old, recent...)}); err != nil {
			t.Fatal(err)
		}
		const budget = 1000
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", Query: "zeppelin hangar", TokenBudget: budget,
			Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil {
			t.Fatal(err)
		}
		tok := c.MemCtx.Tokens
		if tok == nil {
			t.Fatal("memctx has no token figures")
		}
		ms, err := e.Messages(ctx, "t", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		bySeq := map[int64]engine.Message{}
		for _, m := range ms {
			bySeq[m.Seq] = m
		}
		call := bySeq[14]
		want := tokens.Message(call.Content, call.Name, tokens.CallsJSON([]tokens.Call{{ID: "call_0", Name: "weather", Arguments: call.ToolCalls[0].Arguments}}))
		if call.Tokens != want || call.Tokens < 10000 {
			t.Fatalf("stored estimate of the tool call %d, want %d (~10k)", call.Tokens, want)
		}
		sum := func(refs []journal.Ref) int {
			n := 0
			for _, r := range refs {
				n += bySeq[r.Seq].Tokens
			}
			return n
		}
		if len(c.MemCtx.Recalled) == 0 {
			t.Fatalf("nothing recalled: %+v", c.MemCtx)
		}
		if got, want := tok.Recent, sum(c.MemCtx.Recent); got != want {
			t.Errorf("recent tokens %d, want %d", got, want)
		}
		if got, want := tok.Recalled, sum(c.MemCtx.Recalled); got != want {
			t.Errorf("recalled tokens %d, want %d", got, want)
		}
		if tok.WorkingMemory <= 0 || tok.Tools <= 0 || tok.Observations != 0 {
			t.Errorf("working memory %d, tools %d, observations %d", tok.WorkingMemory, tok.Tools, tok.Observations)
		}
		if tok.Total != tok.Recent+tok.Recalled+tok.Observations+tok.WorkingMemory+tok.Tools {
			t.Errorf("total %d is not the sum of %+v", tok.Total, *tok)
		}
		if tok.Total <= budget || tok.Recent <= budget {
			t.Errorf("the recent window's %d tokens over the %d budget are not visible: %+v", tok.Recent, budget, *tok)
		}
		rec, err := e.Journal().MemCtx(ctx, "run-1")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.Tokens, tok) {
			t.Fatalf("stored token figures %+v, returned %+v", rec.Tokens, tok)
		}
	})
}
