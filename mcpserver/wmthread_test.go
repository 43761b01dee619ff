package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestWorkingMemoryThreadAndResource: the working-memory tools given both
// threadId and resourceId check that the thread is the resource's, as
// memory_append and memory_context do (server.ThreadConflict): another of
// the token's resources is a conflict naming resourceId, a resource the
// token may not touch is not found, and the thread's own resource is
// accepted. Before, resourceId was ignored beside threadId.
func TestWorkingMemoryThreadAndResource(t *testing.T) {
	e := openEngine(t)
	two := twoResources(t)
	cs := connect(t, e, two)
	if failed, text := call(t, cs, mcpserver.ToolAppend, map[string]any{"threadId": "t1", "resourceId": "r1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	cases := []struct {
		name, resource, want string // want: "" for success, else the start of the error text
	}{
		{"OK", "r1", ""},
		{"ErrOtherResource", "r2", `Conflict with stored data: thread "t1" belongs to another of your resources (field resourceId)`},
		{"ErrForeignResource", "r3", `Not found: resource not found: "r3"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for tool, args := range map[string]map[string]any{
				mcpserver.ToolWMGet:    {"threadId": "t1", "resourceId": c.resource},
				mcpserver.ToolWMUpdate: {"threadId": "t1", "resourceId": c.resource, "patch": map[string]any{"name": "Ana"}},
			} {
				failed, text := call(t, cs, tool, args, nil)
				if c.want == "" && failed || c.want != "" && (!failed || !strings.HasPrefix(text, c.want)) {
					t.Errorf("%s: failed %v, %q; want %q", tool, failed, text, c.want)
				}
			}
		})
	}
}
