package mcpserver_test

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestOutputsAsAPI: memory_append says whether it started the thread
// (created, as POST …/messages answers), and the working-memory tools say
// when the memory was last written (updatedAt, as GET …/working-memory
// answers; absent before the first write). The tools dropped both.
func TestOutputsAsAPI(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for i, want := range []bool{true, false} {
		var app mcpserver.AppendOutput
		if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("turn"), &app); failed {
			t.Fatalf("append %d: %s", i, text)
		}
		if got := app.Created; got != want {
			t.Fatalf("append %d: created %v, want %v", i, got, want)
		}
	}
	var wm mcpserver.WorkingMemoryOutput
	if failed, text := call(t, cs, mcpserver.ToolWMGet, map[string]any{"threadId": "t1"}, &wm); failed || wm.UpdatedAt != "" {
		t.Fatalf("never written: failed %v %q, updatedAt %q, want none", failed, text, wm.UpdatedAt)
	}
	for _, tool := range []string{mcpserver.ToolWMUpdate, mcpserver.ToolWMGet} {
		wm = mcpserver.WorkingMemoryOutput{}
		args := map[string]any{"threadId": "t1"}
		if tool == mcpserver.ToolWMUpdate {
			args["patch"] = map[string]any{"name": "Ana"}
		}
		if failed, text := call(t, cs, tool, args, &wm); failed {
			t.Fatalf("%s: %s", tool, text)
		}
		if _, err := time.Parse(time.RFC3339, wm.UpdatedAt); err != nil {
			t.Fatalf("%s: updatedAt %q: %v", tool, wm.UpdatedAt, err)
		}
	}
}
