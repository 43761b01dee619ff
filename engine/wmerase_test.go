package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

const profileSchema = `{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"},"pet":{"type":"string"}}}`

// wmEnv is a resource-scoped working memory and helpers to run turns.
type wmEnv struct {
	t   *testing.T
	be  enginetest.Backend
	e   *engine.Engine
	mem *working.Memory
}

func newWMEnv(t *testing.T, be enginetest.Backend) *wmEnv { return newWMEnvClock(t, be, nil) }

// newWMEnvClock is newWMEnv with the engine's clock (nil: time.Now).
func newWMEnvClock(t *testing.T, be enginetest.Backend, now func() time.Time) *wmEnv {
	e := be.MustOpen(t, engine.Config{Now: now, WorkingMemory: &working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource}})
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	return &wmEnv{t: t, be: be, e: e, mem: mem}
}

// run composes a run's context and applies one updateWorkingMemory call of
// it.
func (w *wmEnv) run(req engine.LoadRequest, callID, patch string) {
	w.t.Helper()
	ctx := context.Background()
	if _, err := w.e.LoadContext(ctx, req); err != nil {
		w.t.Fatal(err)
	}
	msg, err := w.e.HandleToolCall(ctx, req.RunID, req.ThreadID, "", openaitest.ToolCall(callID, tools.UpdateWorkingMemoryName, patch))
	if err != nil || !strings.Contains(msg.Content, `"ok":true`) {
		w.t.Fatalf("tool call: %+v, %v", msg, err)
	}
}

// assertForgot checks the resource's state is want and that neither the
// state nor any version of its history holds secret.
func (w *wmEnv) assertForgot(resource, secret, want string) {
	w.t.Helper()
	ctx := context.Background()
	key := working.ResourceKey(resource)
	st, err := w.mem.Get(ctx, key)
	if err != nil {
		w.t.Fatal(err)
	}
	if st.Content != want {
		w.t.Errorf("state after the erasure = %s, want %s", st.Content, want)
	}
	hist, err := w.mem.History(ctx, key, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, v := range hist {
		if strings.Contains(v.Content, secret) {
			w.t.Errorf("history version %d (run %q) keeps the erased fact: %s", v.Version, v.RunID, v.Content)
		}
	}
	if len(hist) == 0 {
		w.t.Error("the history lost the versions that did not derive from the erased turn")
	}
	if hits := storedCopies(w.t, w.be, w.e, secret); len(hits) > 0 {
		w.t.Errorf("the erased fact is still in %v", hits)
	}
}

// TestEraseForgetsWorkingMemory: a resource-scoped working memory written
// by a run whose context held a turn forgets what that run wrote when the
// turn is erased (DeleteMessages, DeleteThread), in its current state and
// its history; what other runs wrote stays.
func TestEraseForgetsWorkingMemory(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		t.Run("DeleteMessages", func(t *testing.T) {
			w := newWMEnv(t, be)
			const secret = "Zanzibar-Quokka-7731"
			appendTo(t, w.e, "a", "r", user("x", "my name is "+secret))
			w.run(engine.LoadRequest{RunID: "run-1", ThreadID: "a"}, "call_0", `{"name":"`+secret+`"}`)
			appendTo(t, w.e, "a", "r", user("y", "I live in Porto"))
			w.run(engine.LoadRequest{RunID: "run-2", ThreadID: "a", RecentN: 1}, "call_0", `{"city":"Porto"}`)
			res, err := w.e.DeleteMessages(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.WorkingMemoryInvalidated, 1; got != want {
				t.Errorf("WorkingMemoryInvalidated = %d, want %d", got, want)
			}
			w.assertForgot("r", secret, `{"city":"Porto"}`)
		})
		t.Run("DeleteThread", func(t *testing.T) {
			w := newWMEnv(t, be)
			const secret = "Marmalade-Heron-4410"
			appendTo(t, w.e, "b1", "r", user("", "my name is "+secret))
			w.run(engine.LoadRequest{RunID: "b1-1", ThreadID: "b1"}, "call_0", `{"name":"`+secret+`"}`)
			appendTo(t, w.e, "b2", "r", user("", "I have a cat"))
			w.run(engine.LoadRequest{RunID: "b2-1", ThreadID: "b2"}, "call_0", `{"pet":"cat"}`)
			res, err := w.e.DeleteThread(ctx, "b1")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.WorkingMemoryInvalidated, 1; got != want {
				t.Errorf("WorkingMemoryInvalidated = %d, want %d", got, want)
			}
			w.assertForgot("r", secret, `{"pet":"cat"}`)
		})
		t.Run("QueryOfALoadFirstLoop", func(t *testing.T) {
			// A loop that loads context before it appends the user's message
			// passes that message as the query: the run saw it.
			w := newWMEnv(t, be)
			const secret = "Tangerine-Walrus-9902"
			appendTo(t, w.e, "c", "r", user("", "hello"))
			w.run(engine.LoadRequest{RunID: "c-1", ThreadID: "c", Query: "I have a dog"}, "call_0", `{"pet":"dog"}`)
			appendTo(t, w.e, "c", "r", user("c-dog", "I have a dog"))
			w.run(engine.LoadRequest{RunID: "c-2", ThreadID: "c", Query: "call me " + secret}, "call_0", `{"name":"`+secret+`"}`)
			appendTo(t, w.e, "c", "r", user("c-name", "call me "+secret))
			if _, err := w.e.DeleteMessages(ctx, "c-name"); err != nil {
				t.Fatal(err)
			}
			w.assertForgot("r", secret, `{"pet":"dog"}`)
		})
		// Erasing the assistant message whose tool call carried the update
		// erases the update, not the updates of other turns' calls with the
		// same id (agents send call_0 every turn). With a clock that does not
		// move, every turn and record shares one millisecond: the previous
		// turn's call_0 (stored before run d-2 composed its context) must not
		// be taken for d-2's own call. With the real clock this failed about one
		// run in six, when d-a1 and d-2's record fell in the same millisecond.
		// In a long window the record lists only the first journal.RecentCap
		// turns, so what it lists cannot order the run either: the erasure
		// orders by the record's threadSeq.
		frozen := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
		stopped := func() time.Time { return frozen }
		long := journal.RecentCap + 6
		for _, c := range []struct {
			name   string
			clock  func() time.Time
			window int // small-talk turns before the two turns
		}{
			{"ErasedCall", nil, 0},
			{"ErasedCallSameMillisecond", stopped, 0},
			{"ErasedCallLongWindow", nil, long},
			{"ErasedCallLongWindowSameMillisecond", stopped, long},
		} {
			t.Run(c.name, func(t *testing.T) { erasedCall(t, newWMEnvClock(t, be, c.clock), c.window) })
		}
		for name, clock := range map[string]func() time.Time{"TurnAfterTheRun": nil, "TurnAfterTheRunSameMillisecond": stopped} {
			t.Run(name, func(t *testing.T) { turnAfterTheRun(t, newWMEnvClock(t, be, clock)) })
		}
	})
}

// turnAfterTheRun: a turn stored after a run composed its context was not
// in it, even when the run's window holds more turns than its record lists
// (the erasure then cannot read the window off the record): erasing it
// keeps what the run wrote.
func turnAfterTheRun(t *testing.T, w *wmEnv) {
	ctx := context.Background()
	n := journal.RecentCap + 6
	smallTalk(t, w, "e", n)
	w.run(engine.LoadRequest{RunID: "e-1", ThreadID: "e", RecentN: n, Query: "where do I live"}, "call_0", `{"city":"Oslo"}`)
	appendTo(t, w.e, "e", "r", user("e-later", "a later turn"))
	res, err := w.e.DeleteMessages(ctx, "e-later")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.WorkingMemoryInvalidated; got != 0 {
		t.Errorf("WorkingMemoryInvalidated = %d, want 0 (the run did not see the erased turn)", got)
	}
	w.assertForgot("r", "a later turn", `{"city":"Oslo"}`)
}

// smallTalk appends n user turns to thread that tell nothing.
func smallTalk(t *testing.T, w *wmEnv, thread string, n int) {
	t.Helper()
	for i := range n {
		appendTo(t, w.e, thread, "r", user("", fmt.Sprintf("small talk %d", i)))
	}
}

// erasedCall runs two turns whose updates both come through call_0 (after
// window turns of small talk, all in each run's recent window), erases the
// second turn's assistant message and checks its update went with it.
func erasedCall(t *testing.T, w *wmEnv, window int) {
	ctx := context.Background()
	const secret = "Cobalt-Pelican-5528"
	smallTalk(t, w, "d", window)
	appendTo(t, w.e, "d", "r", user("", "I live in Lisbon"))
	turn := func(run, patch, assistantID string) {
		if _, err := w.e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "d", RecentN: window + 10}); err != nil {
			t.Fatal(err)
		}
		call := openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, patch)
		appendTo(t, w.e, "d", "r", engine.Message{ID: assistantID, Role: engine.RoleAssistant,
			ToolCalls: []engine.ToolCall{{ID: "call_0", Name: tools.UpdateWorkingMemoryName, Arguments: json.RawMessage(patch)}}})
		msg, err := w.e.HandleToolCall(ctx, run, "d", "", call)
		if err != nil {
			t.Fatal(err)
		}
		appendTo(t, w.e, "d", "r", engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: msg.Name, Content: msg.Content})
	}
	turn("d-1", `{"city":"Lisbon"}`, "d-a1")
	turn("d-2", `{"name":"`+secret+`"}`, "d-a2")
	res, err := w.e.DeleteMessages(ctx, "d-a2")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.WorkingMemoryInvalidated, 1; got != want {
		t.Errorf("WorkingMemoryInvalidated = %d, want %d", got, want)
	}
	w.assertForgot("r", secret, `{"city":"Lisbon"}`)
}

// TestEraseKeepsWorkingMemoryNumbering is walk37's #4: "I live in Lyon."
// (v1), "I live in Porto now." written by a run that had the Lyon turn in
// its window (v2), then DeleteMessages of the Lyon turn takes both. The
// state is cleared to {} under v3 and the next update is v4: before, the
// state was deleted and the next update was v1 again, a new content under
// a number the tool results of surviving turns still name.
func TestEraseKeepsWorkingMemoryNumbering(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		appendTo(t, w.e, "a", "r", user("lyon", "I live in Lyon."))
		w.run(engine.LoadRequest{RunID: "run-1", ThreadID: "a"}, "call_0", `{"city":"Lyon"}`)
		appendTo(t, w.e, "a", "r", user("", "I live in Porto now."))
		w.run(engine.LoadRequest{RunID: "run-2", ThreadID: "a"}, "call_0", `{"city":"Porto"}`)
		res, err := w.e.DeleteMessages(ctx, "lyon")
		if err != nil {
			t.Fatal(err)
		}
		if res.WorkingMemoryInvalidated != 2 {
			t.Errorf("WorkingMemoryInvalidated = %d, want 2", res.WorkingMemoryInvalidated)
		}
		key := working.ResourceKey("r")
		st, err := w.mem.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if st.Content != "{}" || st.Version != 3 {
			t.Errorf("state after the erasure = %s v%d, want {} v3", st.Content, st.Version)
		}
		appendTo(t, w.e, "a", "r", user("", "I live in Braga."))
		msg, err := w.e.HandleToolCall(ctx, "run-3", "a", "r", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"city":"Braga"}`))
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"ok":true,"version":4}`; msg.Content != want {
			t.Errorf("the next update answers %s, want %s", msg.Content, want)
		}
	})
}
