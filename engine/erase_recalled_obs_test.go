package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
)

// TestEraseForgetsRecalledObservations: a recallObservations call records
// its result (the text of the observations it found) in the journal, so
// that the same call handled again gets the same answer. An erasure of the
// turn such an observation was distilled from invalidates the observation;
// it must take the recorded result too, whichever run and thread recorded
// it: else the erased text stays on disk and comes back to the call
// handled again.
func TestEraseForgetsRecalledObservations(t *testing.T) {
	for _, c := range []struct {
		name  string
		scope string
		run   string // the thread of the run that recalls
		kept  bool   // the observation of o1 stays live, and so does the result that holds it alone
		erase func(context.Context, *engine.Engine) error
	}{
		{"message, same thread", engine.ObserveScopeThread, "t", true, func(ctx context.Context, e *engine.Engine) error {
			_, err := e.DeleteMessages(ctx, "o2")
			return err
		}},
		{"thread, recalled from another thread", engine.ObserveScopeResource, "t2", false, func(ctx context.Context, e *engine.Engine) error {
			_, err := e.DeleteThread(ctx, "t")
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
				ctx := context.Background()
				srv := openaitest.New(t, openaitest.WithChat(observerModel))
				e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{
					Model: newObserverModel(t, srv), Threshold: 10, Scope: c.scope, SearchTool: true}})
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
					user("o1", "first turn about gardens"), user("o2", "my secret is "+secretToken), user("o3", "third turn"),
					user("o4", "fourth turn"), user("o5", "fifth turn"),
				}}); err != nil {
					t.Fatal(err)
				}
				appendUser(t, e, "t2", "r", "a second chat")
				if _, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: c.run, RunID: "run-1"}); err != nil {
					t.Fatal(err)
				}
				call := openai.ToolCall{ID: "call_0", Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: tools.RecallObservationsName, Arguments: `{"query":"secret"}`}}
				msg, err := e.HandleToolCall(ctx, "run-1", c.run, "r", call)
				if err != nil || !strings.Contains(msg.Content, secretToken) {
					t.Fatalf("recallObservations: %q, %v; want the observation of o2", msg.Content, err)
				}
				gardens := openai.ToolCall{ID: "call_1", Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: tools.RecallObservationsName, Arguments: `{"query":"gardens","topK":1}`}}
				if msg, err := e.HandleToolCall(ctx, "run-1", c.run, "r", gardens); err != nil || !strings.Contains(msg.Content, "gardens") {
					t.Fatalf("recallObservations of gardens: %q, %v; want the observation of o1", msg.Content, err)
				}
				if err := c.erase(ctx, e); err != nil {
					t.Fatal(err)
				}
				if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
					t.Errorf("the erased token is still in %v", hits)
				}
				msg, err = e.HandleToolCall(ctx, "run-1", c.run, "r", call)
				if strings.Contains(msg.Content, secretToken) {
					t.Errorf("the call handled again after the erasure: %q, %v; the erased text came back", msg.Content, err)
				}
				// A result holding no invalidated observation stays recorded:
				// another call under its id is refused as a reuse.
				gardens.Function.Arguments = `{"query":"turn"}`
				msg, err = e.HandleToolCall(ctx, "run-1", c.run, "r", gardens)
				if reused := strings.Contains(msg.Content, "already used"); err != nil || reused != c.kept {
					t.Errorf("call_1 reused after the erasure: %q, %v; want its recorded result kept=%v", msg.Content, err, c.kept)
				}
			})
		})
	}
}
