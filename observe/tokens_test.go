package observe_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/observe"
)

// TestFallbackTokensCountToolCalls: a custom Source that leaves Turn.Tokens
// zero gets the engine's estimate (internal/tokens: content, name and tool
// calls), so a 10k-token tool exchange is not counted as ~40 tokens and the
// observer's threshold and chunks see it (issue 19 item 8).
func TestFallbackTokensCountToolCalls(t *testing.T) {
	forEachBackend(t, testFallbackTokensCountToolCalls)
}

func testFallbackTokensCountToolCalls(t *testing.T, b backend) {
	f := newFakeModel(t, scripted)
	src := &memSource{}
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{Threshold: 5000, RecentN: -1})
	args, _ := json.Marshal(map[string]string{"query": strings.Repeat("weather data ", 3100)}) // ~40 KB
	turns := []observe.Turn{
		user("what is the weather in Berlin?"),
		{Role: "assistant", ToolCalls: []observe.ToolCall{{ID: "call_0", Name: "weather", Arguments: string(args)}}},
		{Role: "tool", Name: "weather", ToolCallID: "call_0", Content: "sunny"},
		assistant("It is sunny."),
	}
	src.add("t1", 0, turns...)
	p, err := e.obs.Plan(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, tu := range src.turns["t1"] {
		var calls []tokens.Call
		for _, c := range tu.ToolCalls {
			calls = append(calls, tokens.Call{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments)})
		}
		want += tokens.Message(tu.Content, tu.Name, tokens.CallsJSON(calls))
	}
	if p.PendingTokens != want || p.PendingTokens < 10000 {
		t.Fatalf("pending tokens %d, want %d (the tool exchange is ~10k tokens)", p.PendingTokens, want)
	}
	if !p.Due {
		t.Fatalf("a 10k-token exchange is not due at threshold 5000: %+v", p)
	}
}
