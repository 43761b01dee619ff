package engine

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// partTokens estimates each part of a composed context with the one
// estimator (internal/tokens): turns by their stored estimates (content,
// name and tool calls), observations as the budget counts them, the
// rendered working memory and the tool definitions as text.
func partTokens(turns []turn, obs []observe.Observation, wmText string, defs []openai.Tool) *journal.Tokens {
	t := &journal.Tokens{Observations: observationTokens(obs), WorkingMemory: tokens.Text(wmText)}
	for _, m := range turns {
		if m.Recent {
			t.Recent += m.Tokens
		} else {
			t.Recalled += m.Tokens
		}
	}
	if len(defs) > 0 {
		b, _ := json.Marshal(defs)
		t.Tools = tokens.Text(string(b))
	}
	t.Total = t.Recent + t.Recalled + t.Observations + t.WorkingMemory + t.Tools
	return t
}
