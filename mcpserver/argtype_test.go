package mcpserver_test

import "testing"

// TestArgumentTypeWording: an argument of another JSON type than its
// field takes is refused in the HTTP API's words, naming its path, as a
// request body's member is (`"recall.topK" must be a JSON number, not a
// string`); the SDK's schema said `validating "arguments": validating
// root: validating /properties/topK: type: 5 has type "string", want
// "integer"`, and for a message's member named no message.
func TestArgumentTypeWording(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_search", map[string]any{"query": "hello", "topK": "5"}, `Invalid input: "topK" must be a JSON number, not a string (field topK)`},
		{"memory_search", map[string]any{"query": "hello", "topK": true}, `Invalid input: "topK" must be a JSON number, not a boolean (field topK)`},
		{"memory_search", map[string]any{"query": "hello", "topK": 1.5}, `Invalid input: "topK" must be an integer, not 1.5 (field topK)`},
		{"memory_search", map[string]any{"query": 5}, `Invalid input: "query" must be a JSON string, not a number (field query)`},
		{"memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "x"}, {"role": "user", "content": 5}}},
			`Invalid input: "messages[1].content" must be a JSON string, not a number (field messages[1].content)`},
		{"memory_context", map[string]any{"threadId": "t1", "topK": "3"}, `Invalid input: "topK" must be a JSON number, not a string (field topK)`},
	} {
		if failed, text := call(t, cs, c.tool, c.args, nil); !failed || text != c.want {
			t.Errorf("%s %v: failed %v, %q; want %q", c.tool, c.args, failed, text, c.want)
		}
	}
}
