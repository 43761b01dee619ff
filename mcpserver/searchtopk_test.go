package mcpserver_test

import (
	"strings"
	"testing"
)

// TestSearchTopKBound: memory_search's topK is at most 50, as its
// description tells the model; before, anything up to the API's 1000 was
// taken (with the turn before and after each hit, 3,000 turns in one tool
// result).
func TestSearchTopKBound(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hello there"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	if failed, text := call(t, cs, "memory_search", map[string]any{"query": "hello", "topK": 50}, nil); failed {
		t.Fatalf("topK 50: %s", text)
	}
	for _, k := range []int{51, 1000} {
		failed, text := call(t, cs, "memory_search", map[string]any{"query": "hello", "topK": k}, nil)
		if !failed || !strings.Contains(text, "topK") || !strings.Contains(text, "50") {
			t.Errorf("topK %d: failed %v, %q; want refused naming topK and 50", k, failed, text)
		}
	}
}
