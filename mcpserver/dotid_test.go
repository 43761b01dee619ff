package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestDotIDArguments: a thread, message or run id "." or ".." (which no
// URL path can hold) is refused by the tools that would store something
// under it, naming the argument and saying the rule; nothing is stored.
func TestDotIDArguments(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{mcpserver.ToolAppend, map[string]any{"threadId": "..", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "threadId"},
		{mcpserver.ToolAppend, map[string]any{"threadId": "t1", "messages": []map[string]any{{"id": ".", "role": "user", "content": "x"}}}, "messages[0].id"},
		{mcpserver.ToolContext, map[string]any{"threadId": "t1", "runId": ".."}, "runId"},
		{mcpserver.ToolWMUpdate, map[string]any{"threadId": ".", "content": "{}"}, "threadId"},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.HasPrefix(text, "Invalid input: ") || !strings.Contains(text, `not "." or ".."`) || !strings.HasSuffix(text, "(field "+c.field+")") {
			t.Errorf("%s %v: failed %v, %q; want Invalid input: … not \".\" or \"..\" … (field %s)", c.tool, c.args, failed, text, c.field)
		}
	}
	for _, id := range []string{".", "..", "t1"} {
		if _, err := e.GetThread(t.Context(), id); err == nil {
			t.Errorf("thread %q stored", id)
		}
	}
}
