package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/tools"
)

func TestRecallObservationsToolIsOptIn(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		e := enginetest.MustOpen(t, engine.Config{Observe: &engine.ObserveConfig{SearchTool: on}})
		toolThread(t, e, "t")
		if _, err := e.DB().Exec(`INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
			VALUES ('o1', 't', 'r', 1, 6, 'observation', '- crate B quoted at 95 EUR, ref ZEPHYR-QUOTE', 1)`); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(c.Tools); (got == 1) != on || (on && c.Tools[0].Function.Name != tools.RecallObservationsName) {
			t.Fatalf("SearchTool=%v: tools %+v", on, c.Tools)
		}
		if !on {
			continue
		}
		msg, err := e.HandleToolCall(ctx, "run-1", "t", "", openai.ToolCall{ID: "s1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tools.RecallObservationsName, Arguments: `{"query":"ZEPHYR quote"}`}})
		if err != nil || !strings.Contains(msg.Content, "95 EUR") {
			t.Fatalf("search result %q, %v", msg.Content, err)
		}
	}
}
