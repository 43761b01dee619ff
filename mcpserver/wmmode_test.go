package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestWMModeMismatch: working_memory_update's patch of a thread's state
// kept in template mode, the server now in schema mode, is the HTTP API's
// 409 working-memory-mode as a tool error (not a JSON-RPC error, not
// "Internal error"): its title, the detail naming the key and both modes
// and what to send, and the field patch. The state is left as it was, and
// content, the whole state, then replaces it as version 2.
func TestWMModeMismatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}})
	if _, err := old.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "res-alice", Messages: []engine.Message{{Role: engine.RoleUser, Content: "I am Ana"}}}); err != nil {
		t.Fatal(err)
	}
	mem, _ := old.WorkingMemory()
	if _, err := mem.Set(ctx, working.ThreadKey("t1"), "# Notes\n- Ana\n", working.Origin{}); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
	}})
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)

	failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "patch": map[string]any{"name": "Ana"}}, nil)
	want := "Working memory state of another mode: stored state has another mode: thread:t1 was written in template mode and the working memory is now in schema mode; " +
		"a merge patch needs a schema-mode state: set the whole state to replace it (send content, the whole state: a JSON object, or its text as a JSON string) (field patch)"
	if !failed || text != want {
		t.Errorf("patch of the template state: failed %v, %q; want the tool error %q", failed, text, want)
	}
	var w struct {
		Mode    string `json:"mode"`
		Content string `json:"content"`
		Version int64  `json:"version"`
	}
	if failed, text := call(t, cs, "working_memory_get", map[string]any{"threadId": "t1"}, &w); failed || w.Mode != "template" || w.Content != "# Notes\n- Ana\n" || w.Version != 1 {
		t.Fatalf("get after the refused patch: %v %s %+v, want the template state v1", failed, text, w)
	}
	if failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "content": `{"name":"Ana"}`}, &w); failed || w.Mode != "schema" || w.Version != 2 {
		t.Fatalf("content after the refusal: %v %s %+v, want the schema state v2", failed, text, w)
	}
}
