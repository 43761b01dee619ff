package mcpserver_test

import (
	"fmt"
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
	// Worded as the API's recall.topK and memory_context's topK, with the
	// tool's own bound (it said "topK is at most 50", and for -1 recall's
	// "[0, 1000]").
	for _, k := range []int{51, 1000, -1} {
		failed, text := call(t, cs, "memory_search", map[string]any{"query": "hello", "topK": k}, nil)
		if want := fmt.Sprintf("Invalid input: topK must be within [0, 50], got %d (field topK)", k); !failed || text != want {
			t.Errorf("topK %d: failed %v, %q; want %q", k, failed, text, want)
		}
	}
}
