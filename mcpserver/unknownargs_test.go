package mcpserver_test

import (
	"encoding/json"
	"testing"
)

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

// TestArgumentOutOfRange: a number an argument's field cannot hold is a
// tool error naming the field in the HTTP API's words. The SDK's schema
// took it as an integer and the tool failed with encoding/json's words,
// naming Go types: `json: cannot unmarshal number 100000000000000000000}
// overflows into Go struct field mcpserver.SearchInput.topK of type int`.
// A whole number written 5.0 or 1e3, which the schema takes, still is.
func TestArgumentOutOfRange(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hello there"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_search", map[string]any{"query": "x", "topK": json.Number("99999999999999999999")},
			`Invalid input: "topK" is out of range for an integer: 99999999999999999999 (field topK)`},
		{"memory_search", map[string]any{"query": "x", "topK": json.Number("1e30")},
			`Invalid input: "topK" is out of range for an integer: 1e30 (field topK)`},
		{"memory_context", map[string]any{"threadId": "t1", "recentN": json.Number("1e400")},
			`Invalid input: "recentN" is out of range for an integer: 1e400 (field recentN)`},
		{"memory_context", map[string]any{"threadId": "t1", "recentN": json.Number("-99999999999999999999")},
			`Invalid input: "recentN" is out of range for an integer: -99999999999999999999 (field recentN)`},
	} {
		if failed, text := call(t, cs, c.tool, c.args, nil); !failed || text != c.want {
			t.Errorf("%s %v: failed %v, %q; want %q", c.tool, c.args, failed, text, c.want)
		}
	}
	for _, k := range []string{"5.0", "1e1"} {
		if failed, text := call(t, cs, "memory_search", map[string]any{"query": "hello", "topK": json.Number(k)}, nil); failed {
			t.Errorf("topK %s: %s", k, text)
		}
	}
}
