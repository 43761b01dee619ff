package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestQueryTooLong: memory_search and memory_context refuse a query over
// the engine's limit with a tool error naming the field "query".
func TestQueryTooLong(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "I live in Porto"}}}, nil)
	long := strings.Repeat("porto ", engine.DefaultMaxQueryBytes/6+1)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_search", map[string]any{"query": long}},
		{"memory_context", map[string]any{"threadId": "t1", "query": long, "topK": 2}},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.Contains(text, "(field query)") || !strings.Contains(text, "at most 16384 bytes") {
			t.Errorf("%s: failed=%v %q, want a refusal naming the field query and the limit", c.tool, failed, text)
		}
	}
}
