package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestContextQueryRecallOff: memory_context with a query and no topK (the
// server configures no recall) records the query and says in its notice
// that nothing was recalled and to give topK (before: the query was
// silently not used for recall).
func TestContextQueryRecallOff(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "the spare key is under the flowerpot"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	var out mcpserver.ContextOutput
	if failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t1", "query": "where is the key"}, &out); failed {
		t.Fatalf("context: %s", text)
	}
	if !strings.Contains(out.Notice, "recall is off") || !strings.Contains(out.Notice, "topK") {
		t.Errorf("notice %q: want it to say recall is off and to give topK", out.Notice)
	}
	out = mcpserver.ContextOutput{}
	if failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t1", "query": "where is the key", "topK": 3}, &out); failed || out.Notice != "" {
		t.Errorf("with topK: failed %v %s, notice %q; want none", failed, text, out.Notice)
	}
}
