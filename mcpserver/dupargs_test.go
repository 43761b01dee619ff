package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestDuplicateArguments: arguments naming one key twice in an object are
// refused naming the key's path, as the HTTP API refuses such a body, and
// nothing is stored. Before, the SDK kept the last member silently (a
// message {"role":"user","role":"assistant"} was stored as the assistant's).
func TestDuplicateArguments(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct{ tool, args, field string }{
		{"memory_append", `{"threadId":"t1","messages":[{"role":"user","content":"hi","role":"assistant"}]}`, "messages[0].role"},
		{"memory_append", `{"threadId":"t1","threadId":"t2","messages":[{"role":"user","content":"hi"}]}`, "threadId"},
		{"memory_search", `{"query":"hi","query":"other"}`, "query"},
		{"memory_context", `{"threadId":"t1","runId":"r1","runId":"r2"}`, "runId"},
		{"working_memory_update", `{"threadId":"t1","patch":{"name":"a","name":"b"}}`, "patch.name"},
	} {
		failed, text := call(t, cs, c.tool, json.RawMessage(c.args), nil)
		if !failed || !strings.Contains(text, "given twice") || !strings.Contains(text, "(field "+c.field+")") {
			t.Errorf("%s %s: failed %v, %q; want refused naming %s as given twice", c.tool, c.args, failed, text, c.field)
		}
	}
	for _, th := range []string{"t1", "t2"} {
		msgs, err := e.Messages(context.Background(), th, 0, 0)
		if err == nil && len(msgs) > 0 {
			t.Errorf("thread %s holds %d messages after refused appends", th, len(msgs))
		}
	}
	if failed, text := call(t, cs, "memory_append", json.RawMessage(`{"threadId":"t1","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`), nil); failed {
		t.Fatalf("append without repeats: %s", text)
	}
}
