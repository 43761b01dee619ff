package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryModeChange is walk39 #2 at the engine: a resource's
// state kept in schema mode, then the store opened with a template
// working memory (and back). Every LoadContext of the resource failed
// ("stored state has another mode"). Now the context renders the state as
// what it is, its record says so (workingMemoryNote) and replay
// reproduces the run's hash, also after the state was replaced; the
// model's search/replace is refused with a tool result naming the modes,
// its whole document replaces the state as version 2; back in schema
// mode its patch replaces the markdown as version 3.
func TestWorkingMemoryModeChange(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		schemaCfg := &working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource}
		tmplCfg := &working.Config{Template: "# User\n", Scope: working.ScopeResource}
		open := func(wm *working.Config) *engine.Engine {
			t.Helper()
			e, err := engine.Open(ctx, st.Config(engine.Config{WorkingMemory: wm}))
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		key := working.ResourceKey("r")

		e := open(schemaCfg)
		appendTo(t, e, "t", "r", user("", "I am Ana from Lyon."))
		mem, err := e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Set(ctx, key, `{"name":"Ana","city":"Lyon"}`, working.Origin{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		e = open(tmplCfg)
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t"})
		if err != nil {
			t.Fatalf("LoadContext over a schema state in template mode: %v", err)
		}
		if !strings.Contains(c.System, `"city": "Lyon"`) || !strings.Contains(c.System, `mode="schema"`) || !strings.Contains(c.System, "rewrite it whole with `memory`") {
			t.Errorf("system part:\n%s", c.System)
		}
		if got, want := c.MemCtx.WorkingMemoryNote, "written in schema mode, shown in a template-mode working memory"; got != want {
			t.Errorf("workingMemoryNote = %q, want %q", got, want)
		}
		if _, err := e.Replay(ctx, "run-1", engine.ReplayOptions{}); err != nil {
			t.Fatalf("replay of the run over the schema state: %v", err)
		}
		msg, err := e.HandleToolCall(ctx, "run-1", "t", "", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"search":"Lyon","replace":"Porto"}`))
		if err != nil || !strings.Contains(msg.Content, `"ok":false`) || !strings.Contains(msg.Content, "written in schema mode and the working memory is now in template mode") {
			t.Fatalf("search/replace on the schema state: %+v, %v; want a refusal naming the modes", msg, err)
		}
		msg, err = e.HandleToolCall(ctx, "run-1", "t", "", openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"memory":"# User\n- Ana, Lyon\n"}`))
		if err != nil || !strings.Contains(msg.Content, `"version":2`) {
			t.Fatalf("memory on the schema state: %+v, %v; want version 2", msg, err)
		}
		if _, err := e.Replay(ctx, "run-1", engine.ReplayOptions{}); err != nil {
			t.Fatalf("replay of the run over the schema state, after its replacement: %v", err)
		}
		c, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "t"})
		if err != nil || !strings.Contains(c.System, "- Ana, Lyon") || strings.Contains(c.System, `mode="`) || c.MemCtx.WorkingMemoryNote != "" {
			t.Fatalf("context after the replacement: %v, note %q\n%s", err, c.MemCtx.WorkingMemoryNote, c.System)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		e = open(schemaCfg)
		defer e.Close()
		c, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-3", ThreadID: "t"})
		if err != nil || !strings.Contains(c.System, "- Ana, Lyon") || c.MemCtx.WorkingMemoryNote != "written in template mode, shown in a schema-mode working memory" {
			t.Fatalf("context over the markdown state in schema mode: %v, note %q\n%s", err, c.MemCtx.WorkingMemoryNote, c.System)
		}
		msg, err = e.HandleToolCall(ctx, "run-3", "t", "", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"name":"Ana","city":"Lyon"}`))
		if err != nil || !strings.Contains(msg.Content, `"version":3`) {
			t.Fatalf("patch on the markdown state: %+v, %v; want version 3", msg, err)
		}
		mem, err = e.WorkingMemory()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := mem.Get(ctx, key); err != nil || got.Mode != working.ModeSchema || got.Content != `{"city":"Lyon","name":"Ana"}` {
			t.Fatalf("state after the patch: %+v, %v", got, err)
		}
		// run-1 and run-2 were composed under the template configuration:
		// their replay under this one diverges, as any configuration
		// change makes it (the heading differs).
		if _, err := e.Replay(ctx, "run-3", engine.ReplayOptions{}); err != nil {
			t.Errorf("replay of run-3 over the markdown state: %v", err)
		}
	})
}
