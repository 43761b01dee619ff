package mcpserver_test

import "testing"

// TestArgumentNullMissingWording: a null argument the tool's schema does
// not take, arguments that are not an object, and a missing required
// argument are refused in the HTTP API's words, naming the field; the
// SDK's schema said `validating /properties/topK: type: <invalid
// reflect.Value> has type "null", want "integer"`, `json: cannot
// unmarshal "\"notanobject\"" into Go value of type map[string]interface
// {}` and `validating root: required: missing properties: ["query"]`.
func TestArgumentNullMissingWording(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	msg := func(m map[string]any) map[string]any {
		return map[string]any{"threadId": "t1", "messages": []map[string]any{m}}
	}
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"memory_search", map[string]any{"query": "hello", "topK": nil}, `Invalid input: "topK" must be a JSON number, not null (field topK)`},
		{"memory_search", map[string]any{"query": nil}, `Invalid input: "query" must be a JSON string, not null (field query)`},
		{"memory_append", msg(map[string]any{"role": "user", "content": nil}), `Invalid input: "messages[0].content" must be a JSON string, not null (field messages[0].content)`},
		{"memory_append", msg(map[string]any{"role": nil, "content": "x"}), `Invalid input: "messages[0].role" must be a JSON string, not null (field messages[0].role)`},
		{"working_memory_update", map[string]any{"patch": nil}, `Invalid input: "patch" must be a JSON object, not null (field patch)`},
		{"memory_search", "notanobject", `Invalid input: the arguments must be a JSON object, not a string`},
		{"memory_search", []any{1}, `Invalid input: the arguments must be a JSON object, not an array`},
		{"memory_search", map[string]any{"topK": 3}, `Invalid input: query is required (field query)`},
		{"memory_search", map[string]any{}, `Invalid input: query is required (field query)`},
		{"memory_context", map[string]any{}, `Invalid input: threadId is required (field threadId)`},
		{"memory_append", map[string]any{"messages": []map[string]any{{"role": "user", "content": "x"}}}, `Invalid input: threadId is required (field threadId)`},
		{"memory_append", msg(map[string]any{"content": "x"}), `Invalid input: messages[0].role is required (field messages[0].role)`},
		{"memory_append", msg(map[string]any{"role": "user"}), `Invalid input: messages[0].content is required (field messages[0].content)`},
	} {
		if failed, text := call(t, cs, c.tool, c.args, nil); !failed || text != c.want {
			t.Errorf("%s %v: failed %v, %q; want %q", c.tool, c.args, failed, text, c.want)
		}
	}
	// What the schema takes as null still passes: content (a *string)
	// with a patch.
	if failed, text := call(t, cs, "memory_append", msg(map[string]any{"role": "user", "content": "hello"}), nil); failed {
		t.Fatalf("append: %s", text)
	}
	if failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "content": nil, "patch": map[string]any{"name": "Ann"}}, nil); failed {
		t.Errorf("update with content null: %s", text)
	}
}
