package engine_test

import (
	"context"
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

// TestRunOfErasedTurn is walk39 #1: run r1 composes its context holding
// "I live in Lyon.", DeleteMessages erases that turn while the model
// answers, and then r1's working-memory update arrives. It is refused
// with journal.ErrRunContextErased (which matches ErrRunErased) and
// nothing is stored; a run whose context held no erased turn still writes.
func TestRunOfErasedTurn(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# P\n", Scope: working.ScopeResource}})
		ar, err := e.Append(ctx, engine.AppendRequest{ThreadID: "w1", ResourceID: "ana", Messages: []engine.Message{user("", "I live in Lyon.")}})
		if err != nil {
			t.Fatal(err)
		}
		appendTo(t, e, "w2", "ana", user("", "hello"))
		for run, thread := range map[string]string{"r1": "w1", "r2": "w2"} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: "ana", RecentN: 5}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.DeleteMessages(ctx, ar.IDs[0]); err != nil {
			t.Fatal(err)
		}
		call := openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- City: Lyon\n"}`)
		msg, err := e.HandleToolCall(ctx, "r1", "w1", "ana", call)
		if !errors.Is(err, journal.ErrRunContextErased) || !errors.Is(err, journal.ErrRunErased) {
			t.Fatalf("HandleToolCall of a run whose context held an erased turn: %v %q, want journal.ErrRunContextErased", err, msg.Content)
		}
		if strings.Contains(err.Error(), "w2") || strings.Contains(err.Error(), "Lyon") {
			t.Errorf("the refusal %q names another thread or the erased text", err)
		}
		mem, err := e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		st, err := mem.Get(ctx, working.ResourceKey("ana"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Version != 0 || strings.Contains(st.Content, "Lyon") {
			t.Fatalf("state after the refused write: v%d %q, want v0 without Lyon", st.Version, st.Content)
		}
		call = openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- Mood: fine\n"}`)
		if _, err := e.HandleToolCall(ctx, "r2", "w2", "ana", call); err != nil {
			t.Fatalf("a run that saw no erased turn: %v", err)
		}
		if st, err = mem.Get(ctx, working.ResourceKey("ana")); err != nil || st.Version != 1 {
			t.Fatalf("state after r2's write: v%d, %v; want v1", st.Version, err)
		}
	})
}
