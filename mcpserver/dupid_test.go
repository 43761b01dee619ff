package mcpserver_test

import "testing"

// TestAppendIDTwice: memory_append giving a message id twice with other
// content is refused naming messages[1].id, as the HTTP API's 400; it
// said the id was already stored with different content.
func TestAppendIDTwice(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{
		{"id": "dupe2", "role": "user", "content": "x"}, {"id": "dupe2", "role": "user", "content": "y"}}}, nil)
	want := `Invalid input: invalid messages[1].id: "dupe2" is given twice in the request, as messages[0].id with other content; give each message its own id (field messages[1].id)`
	if !failed || text != want {
		t.Errorf("failed %v, %q; want %q", failed, text, want)
	}
}
