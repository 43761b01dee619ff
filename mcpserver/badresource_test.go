package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestInvalidResourceArgument: an invalid resourceId argument is refused
// in the words the API uses for a body's resourceId, "resourceId must be
// 1-128 characters …", by every tool that takes one; the working-memory
// tools and memory_delete said "resource must be …" (the HTTP path's
// name) while naming the field resourceId.
func TestInvalidResourceArgument(t *testing.T) {
	e := openEngine(t)
	_, bob, _ := principals(t) // bob may erase
	cs := connect(t, e, bob)
	for tool, args := range map[string]map[string]any{
		mcpserver.ToolAppend:   {"threadId": "t1", "resourceId": "bad!", "messages": []map[string]any{{"role": "user", "content": "x"}}},
		mcpserver.ToolSearch:   {"query": "hello", "resourceId": "bad!"},
		mcpserver.ToolContext:  {"threadId": "t1", "resourceId": "bad!"},
		mcpserver.ToolWMGet:    {"resourceId": "bad!"},
		mcpserver.ToolWMUpdate: {"resourceId": "bad!", "content": "{}"},
		mcpserver.ToolDelete:   {"resourceId": "bad!"},
	} {
		failed, text := call(t, cs, tool, args, nil)
		if !failed || !strings.HasPrefix(text, "Invalid input: resourceId must be 1-128 characters") || !strings.HasSuffix(text, "(field resourceId)") {
			t.Errorf("%s: failed %v, %q; want Invalid input: resourceId must be 1-128 characters … (field resourceId)", tool, failed, text)
		}
	}
}
