package mcpserver_test

import "testing"

// TestUnknownArgument: an argument member a tool does not take is a tool
// error naming its path and, when one is close, the member it most likely
// meant, in the HTTP API's words. Before, the SDK's schema check answered
// `validating /properties/messages/items: unexpected additional
// properties ["contnet"]`, naming no message.
func TestUnknownArgument(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "x"}, {"role": "user", "contnet": "y"}}},
			`Invalid input: unknown field "messages[1].contnet" (did you mean "content"?) (field messages[1].contnet)`},
		{"memory_append", map[string]any{"threadId": "t1", "mesages": []map[string]any{{"role": "user", "content": "x"}}},
			`Invalid input: unknown field "mesages" (did you mean "messages"?) (field mesages)`},
		{"memory_search", map[string]any{"query": "x", "bogus": 1}, `Invalid input: unknown field "bogus" (field bogus)`},
		{"memory_delete", map[string]any{"threadid": "t1"}, `Invalid input: unknown field "threadid" (did you mean "threadId"? names are case-sensitive) (field threadid)`},
	} {
		if failed, text := call(t, cs, c.tool, c.args, nil); !failed || text != c.want {
			t.Errorf("%s %v: failed %v, %q; want %q", c.tool, c.args, failed, text, c.want)
		}
	}
}
