package mcpserver_test

import "testing"

// TestWMContentNotJSON: working_memory_update's content that is not JSON
// (schema mode) is refused saying it must be a JSON object matching the
// schema, at which byte it broke, naming content; it was "invalid update:
// not valid JSON: invalid character 'o' in literal null (expecting 'u')".
func TestWMContentNotJSON(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "content": "not json"}, nil)
	want := "Working-memory update refused: invalid update: content must be a JSON object matching the schema: malformed JSON at byte 1: invalid character 'o' in literal null (expecting 'u') (field content)"
	if !failed || text != want {
		t.Errorf("failed %v, %q; want %q", failed, text, want)
	}
}
