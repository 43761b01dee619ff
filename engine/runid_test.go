package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestReservedRunIDs: the run ids of working-memory versions written
// outside a run (the HTTP API's, MCP's, mnemo wm set's) are refused as a
// run id by LoadContext, HandleToolCall and BeginDispatch, a
// *ValidationError on runId matching ErrReservedRunID, recording nothing;
// so a version written so stays when a thread of its resource is erased.
// Before, LoadContext took "mnemo-http-api" as a caller's run id, and
// DeleteThread of that run's thread then invalidated every version the
// HTTP API had written to the resource's state (WorkingMemoryInvalidated
// 1, the state back to {}).
func TestReservedRunIDs(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, id := range []string{engine.RunIDHTTP, engine.RunIDMCP, engine.RunIDWMSet} {
			t.Run(id, func(t *testing.T) {
				ctx := context.Background()
				w := newWMEnv(t, be)
				appendTo(t, w.e, "a", "r", user("", "my name is Ana"))
				appendTo(t, w.e, "b", "r", user("", "hello"))
				key := working.ResourceKey("r")
				if _, err := w.mem.Set(ctx, key, `{"name":"Ana"}`, working.Origin{RunID: id}); err != nil {
					t.Fatal(err)
				}
				_, err := w.e.LoadContext(ctx, engine.LoadRequest{RunID: id, ThreadID: "a"})
				assertReservedRun(t, "LoadContext", err)
				_, err = w.e.HandleToolCall(ctx, id, "a", "", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"city":"Porto"}`))
				assertReservedRun(t, "HandleToolCall", err)
				_, err = w.e.BeginDispatch(ctx, engine.DispatchIntent{RunID: id, ThreadID: "a", ResourceID: "r",
					Message: engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_1", Name: "send", Arguments: []byte(`{}`)}}}})
				assertReservedRun(t, "BeginDispatch", err)
				if _, err := w.e.Journal().MemCtx(ctx, id); !errors.Is(err, journal.ErrNotFound) {
					t.Errorf("the run's record: %v, want none", err)
				}
				res, err := w.e.DeleteThread(ctx, "a")
				if err != nil {
					t.Fatal(err)
				}
				if got := res.WorkingMemoryInvalidated; got != 0 {
					t.Errorf("WorkingMemoryInvalidated = %d, want 0", got)
				}
				if st, err := w.mem.Get(ctx, key); err != nil || st.Content != `{"name":"Ana"}` {
					t.Errorf("the state after DeleteThread: %q, %v, want the version written outside a run", st.Content, err)
				}
			})
		}
	})
}

func assertReservedRun(t *testing.T, op string, err error) {
	t.Helper()
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "runId" || !errors.Is(err, engine.ErrReservedRunID) || !errors.Is(err, engine.ErrInvalidInput) {
		t.Errorf("%s: %v, want a *ValidationError on runId matching ErrReservedRunID", op, err)
	}
}
