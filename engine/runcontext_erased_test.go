package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
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

// TestRunOfErasedUnlistedTurn: a run whose context held a turn its memctx
// record does not list is refused too once the turn is erased: a turn of
// a long recent window beyond the record's journal.RecentCap entries, and
// a turn under an observation the run rendered (the erasure invalidates
// it). Before, the in-flight check read the record's scrubbed previews
// only, and both runs wrote their update back.
func TestRunOfErasedUnlistedTurn(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		wm := &working.Config{Template: "# P\n", Scope: working.ScopeResource}
		t.Run("BeyondTheListedWindow", func(t *testing.T) {
			ctx := context.Background()
			e := be.MustOpen(t, engine.Config{WorkingMemory: wm})
			n := journal.RecentCap + 6
			for i := range n {
				text := fmt.Sprintf("small talk %d", i)
				if i == journal.RecentCap+2 {
					text = "I live in Lyon."
				}
				appendTo(t, e, "w1", "ana", user(fmt.Sprintf("m%d", i), text))
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "w1", ResourceID: "ana", RecentN: n, Query: "weather"})
			if err != nil {
				t.Fatal(err)
			}
			lyon := fmt.Sprintf("m%d", journal.RecentCap+2)
			if c.MemCtx.RecentCount != n || len(c.MemCtx.Recent) != journal.RecentCap || listed(c.MemCtx, lyon) {
				t.Fatalf("precondition: the record lists %d of %d turns (Lyon listed: %v), want %d without it",
					len(c.MemCtx.Recent), c.MemCtx.RecentCount, listed(c.MemCtx, lyon), journal.RecentCap)
			}
			wantRefused(t, e, "r1", "w1", lyon)
		})
		t.Run("UnderAnInvalidatedObservation", func(t *testing.T) {
			ctx := context.Background()
			srv := openaitest.New(t, openaitest.WithChat(observerModel))
			e := be.MustOpen(t, engine.Config{WorkingMemory: wm, RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv)}})
			var msgs []engine.Message
			for i, s := range []string{"I live in Lyon.", "noted", "book a table", "done", "thanks", "bye"} {
				msgs = append(msgs, engine.Message{ID: fmt.Sprintf("o%d", i), Role: []string{engine.RoleUser, engine.RoleAssistant}[i%2], Content: s})
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "w1", ResourceID: "ana", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			if res, err := e.Observe(ctx, "w1", observe.Options{Force: true, NoReflect: true}); err != nil || len(res.Observations) == 0 {
				t.Fatalf("observe: %v, %+v", err, res)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "w1", ResourceID: "ana", Query: "weather"})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.MemCtx.Observations) == 0 || listed(c.MemCtx, "o0") {
				t.Fatalf("precondition: the record renders %d observations and lists the Lyon turn: %v; want observations and not the turn",
					len(c.MemCtx.Observations), listed(c.MemCtx, "o0"))
			}
			wantRefused(t, e, "r1", "w1", "o0")
		})
	})
}

// TestRunOfLiteralErasedText: a turn whose text is literally "[erased]"
// (journal.ErasedPreview), in a run's window and as its query, does not
// make the run's update refused, before an erasure and after one of
// another thread's turn. Before, the in-flight check took any preview or
// query reading "[erased]" for a scrubbed one.
func TestRunOfLiteralErasedText(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# P\n", Scope: working.ScopeResource}})
		appendTo(t, e, "w1", "ana", user("", journal.ErasedPreview))
		appendTo(t, e, "w2", "ana", user("other", "I live in Lyon."))
		for _, run := range []string{"r1", "r2"} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "w1", ResourceID: "ana", Query: journal.ErasedPreview}); err != nil {
				t.Fatal(err)
			}
		}
		call := openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- Mood: fine\n"}`)
		if msg, err := e.HandleToolCall(ctx, "r1", "w1", "ana", call); err != nil || !strings.Contains(msg.Content, `"ok":true`) {
			t.Fatalf("a run whose turn reads %q: %v %q, want its update applied", journal.ErasedPreview, err, msg.Content)
		}
		if _, err := e.DeleteMessages(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		call = openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- Mood: calm\n"}`)
		if msg, err := e.HandleToolCall(ctx, "r2", "w1", "ana", call); err != nil || !strings.Contains(msg.Content, `"ok":true`) {
			t.Fatalf("the same after erasing a turn it did not see: %v %q, want its update applied", err, msg.Content)
		}
	})
}

// listed reports whether rec lists message id in its recent window or
// recalled turns.
func listed(rec *journal.MemCtx, id string) bool {
	for _, list := range [][]journal.Ref{rec.Recent, rec.Recalled} {
		for _, r := range list {
			if r.MessageID == id {
				return true
			}
		}
	}
	return false
}

// wantRefused erases message id, then checks that run's working-memory
// update is refused with journal.ErrRunContextErased and stores nothing.
func wantRefused(t *testing.T, e *engine.Engine, run, thread, id string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.DeleteMessages(ctx, id); err != nil {
		t.Fatal(err)
	}
	call := openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- City: Lyon\n"}`)
	msg, err := e.HandleToolCall(ctx, run, thread, "", call)
	if !errors.Is(err, journal.ErrRunContextErased) {
		t.Fatalf("HandleToolCall after erasing a turn the record does not list: %v %q, want journal.ErrRunContextErased", err, msg.Content)
	}
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := mem.Get(ctx, working.ResourceKey("ana")); err != nil || st.Version != 0 {
		t.Fatalf("state after the refused write: v%d, %v; want v0", st.Version, err)
	}
}
