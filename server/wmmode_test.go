package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryModeChange is walk39 #2 over HTTP: a thread's state
// kept in template mode, then the server started with a schema working
// memory. GET …/working-memory, POST /v1/context and PUT answered 500
// internal ("stored state has another mode" in the log). Now GET answers
// the state as it is (mode template), the context renders it, a patch is
// a 409 working-memory-mode naming the key and both modes (the MCP tools'
// Describe the same), and content in schema mode replaces it as version 2.
func TestWorkingMemoryModeChange(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: recall.HashEmbedder{}, WorkingMemory: &working.Config{Template: "# Notes\n"}}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r1", Messages: []engine.Message{{Role: engine.RoleUser, Content: "I am Ana"}}}); err != nil {
			t.Fatal(err)
		}
		mem, _ := e.WorkingMemory()
		if _, err := mem.Set(ctx, working.ThreadKey("t1"), "# Notes\n- Ana\n", working.Origin{}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		h := newHarnessOn(t, false, server.Config{}, st.Config(engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}}))

		var w server.WorkingMemory
		h.ok("GET", "/v1/threads/{thread}/working-memory", "/v1/threads/t1/working-memory", "", nil, 200).decode(t, &w)
		if w.Mode != "template" || w.Content != "# Notes\n- Ana\n" || w.Version != 1 {
			t.Fatalf("GET: %+v, want the template state v1", w)
		}
		var c server.Context
		h.ok("POST", "/v1/context", "/v1/context", "", map[string]any{"threadId": "t1"}, 200).decode(t, &c)
		if !strings.Contains(c.System, "- Ana") || !strings.Contains(c.System, `mode="template"`) {
			t.Fatalf("context's system part:\n%s", c.System)
		}
		r := h.ok("PUT", "/v1/threads/{thread}/working-memory", "/v1/threads/t1/working-memory", "", map[string]any{"patch": map[string]any{"name": "Ana"}}, 409)
		p := r.problem(t)
		if !strings.HasSuffix(p.Type, "/working-memory-mode") || p.Field != "patch" {
			t.Fatalf("patch of the template state: %+v", p)
		}
		for _, want := range []string{"thread:t1", "template mode", "schema mode", "send content"} {
			if !strings.Contains(p.Detail, want) {
				t.Errorf("the 409's detail %q lacks %q", p.Detail, want)
			}
		}
		_, merr := server.Tenant{Engine: h.e, Principal: server.Operator}.UpdateWorkingMemory(ctx, "t1", "", server.WorkingMemoryUpdate{Patch: map[string]any{"name": "Ana"}}, working.Origin{RunID: engine.RunIDMCP})
		if d := server.Describe(merr); d.Status != 409 || !errors.Is(merr, working.ErrModeMismatch) {
			t.Fatalf("Describe(%v) = %+v, want the 409", merr, d)
		}
		h.ok("PUT", "/v1/threads/{thread}/working-memory", "/v1/threads/t1/working-memory", "", map[string]any{"content": `{"name":"Ana"}`}, 200).decode(t, &w)
		if w.Mode != "schema" || w.Version != 2 || w.Content != `{"name":"Ana"}` {
			t.Fatalf("PUT content: %+v, want the schema state v2", w)
		}
	})
}
