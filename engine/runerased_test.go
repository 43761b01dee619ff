package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestRunOfErasedThread is walk37's eraserace (#8): a loop composes run-1
// on thread t, the thread is erased, and the loop carries on on the same
// thread id (its next append creates it again) under run-1. Each refusal
// says the run's thread was erased (journal.ErrRunErased, which still
// matches journal.ErrRunOwned), where it said "run id belongs to another
// thread" of what is the same thread id; a run of a thread that was not
// erased is still plain ErrRunOwned.
func TestRunOfErasedThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource}})
		appendTo(t, e, "t", "r", user("", "hello"))
		appendTo(t, e, "other", "r", user("", "hi"))
		for _, run := range []string{"run-1", "run-other"} {
			thread := map[string]string{"run-1": "t", "run-other": "other"}[run]
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: "r"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.DeleteThread(ctx, "t"); err != nil {
			t.Fatal(err)
		}
		appendTo(t, e, "t", "r", user("", "are you there?"))
		call := openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"city":"Porto"}`)
		calls := map[string]func(run string) error{
			"LoadContext": func(run string) error {
				_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", ResourceID: "r"})
				return err
			},
			"HandleToolCall": func(run string) error {
				_, err := e.HandleToolCall(ctx, run, "t", "r", call)
				return err
			},
			"BeginDispatch": func(run string) error {
				_, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: run, ThreadID: "t", ResourceID: "r", CallID: "call_9",
					Message: engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_9", Name: "send_email", Arguments: json.RawMessage(`{}`)}}}})
				return err
			},
		}
		for name, f := range calls {
			err := f("run-1")
			if !errors.Is(err, journal.ErrRunErased) || !errors.Is(err, journal.ErrRunOwned) {
				t.Errorf("%s in the erased thread's run: %v, want journal.ErrRunErased (and ErrRunOwned)", name, err)
			}
			if err != nil && strings.Contains(err.Error(), "another thread") {
				t.Errorf("%s: %q speaks of another thread", name, err)
			}
			err = f("run-other")
			if !errors.Is(err, journal.ErrRunOwned) || errors.Is(err, journal.ErrRunErased) {
				t.Errorf("%s in another thread's run: %v, want journal.ErrRunOwned only", name, err)
			}
		}
	})
}
