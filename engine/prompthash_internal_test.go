package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// TestPromptHashPinned pins promptHash and compose's output for fixed
// inputs: the hash is stored in every memctx record and replay compares it,
// so a change to how it is computed (issue 14's allocation work) must keep
// every byte. The inputs hold what JSON escapes (HTML characters, quotes,
// control characters, U+2028), tool calls with raw arguments, and tools.
func TestPromptHashPinned(t *testing.T) {
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "lookup", Description: "find <things> & \"stuff\"", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
	}}}
	msgs := []ContextMessage{
		{Role: RoleUser, Content: "hello <b>world</b> & \"friends\"\u2028\x01 é", Name: "ann"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q": "a<b"}`)}}},
		{Role: RoleTool, Content: "result\n\ttabbed", ToolCallID: "c1"},
	}
	cases := []struct {
		name   string
		system string
		msgs   []ContextMessage
		tools  []openai.Tool
		want   string
	}{
		{"empty", "", nil, nil, "sha256:f7005362e7ab0443ba777a604d0092983dcda7f8e3166933da0c5145b10018b2"},
		{"empty slices", "", []ContextMessage{}, []openai.Tool{}, "sha256:6aeee9576b891b5334ac15b2b3796b70ef61c98a9443afd9760cd6393e7a92c3"},
		{"full", "# Memory\n\nnote <x>", msgs, tools, "sha256:b69441df4b3580448e3967565bc67b25e2746713468a7b718d11885363f607a1"},
	}
	for _, c := range cases {
		if got := promptHash(c.system, c.msgs, c.tools); got != c.want {
			t.Errorf("%s: promptHash = %s, want %s", c.name, got, c.want)
		}
	}
	turns := []turn{
		{Message: Message{ID: "m1", ThreadID: "t0", Seq: 3, Role: RoleUser, Content: "old <text>", CreatedAt: time.Date(2023, 5, 8, 14, 3, 0, 0, time.UTC)}, Reason: "hit"},
		{Message: Message{ID: "m2", ThreadID: "t1", Seq: 7, Role: RoleUser, Content: "now & then"}, Recent: true},
	}
	const wantCompose = "sha256:f54ed9a99cc8a6d87e47e7fb4da1b452e6a771007ffda010bf008c6c197d8099"
	c := compose(turns, "obs", "wm", tools, nil)
	if c.PromptHash != wantCompose {
		t.Errorf("compose: PromptHash = %s, want %s", c.PromptHash, wantCompose)
	}
	const wantRecalled = "[recalled · thread t0 · seq 3 · 2023-05-08 14:03 UTC] old <text>"
	if got := c.Messages[0].Content; got != wantRecalled {
		t.Errorf("compose: recalled content = %q, want %q", got, wantRecalled)
	}
}

// BenchmarkPromptHash hashes a prompt of 30 messages of ~300 bytes and one
// tool (issue 14: the allocations of the record stage).
func BenchmarkPromptHash(b *testing.B) {
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "lookup"}}}
	msgs := make([]ContextMessage, 30)
	for i := range msgs {
		msgs[i] = ContextMessage{Role: RoleUser, Content: strings.Repeat("words of a turn, ", 18), ThreadID: "t1", Seq: int64(i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		promptHash("# Memory\n\nsome observations", msgs, tools)
	}
}
