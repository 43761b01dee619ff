package jsonkey_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

func TestClosest(t *testing.T) {
	jsonl := []string{"thread", "resource", "id", "role", "content", "name", "tool_calls", "tool_call_id", "metadata", "created_at"}
	for _, c := range []struct {
		key, want string
	}{
		{"contnet", "content"},      // a transposition
		{"conten", "content"},       // a deletion
		{"Content", "content"},      // case
		{"ROLE", "role"},            // case, however short
		{"resouce", "resource"},     // a deletion
		{"threads", "thread"},       // an insertion
		{"createdAt", "created_at"}, // two edits
		{"text", ""},                // too far from every name
		{"ix", ""},                  // one edit from "id", but half of a short key
		{"toolcalls", "tool_calls"},
		{"tool_call", "tool_calls"}, // one edit from tool_calls, more from tool_call_id
		{"", ""},
	} {
		if got := jsonkey.Closest(c.key, jsonl); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.key, got, c.want)
		}
	}
	if got := jsonkey.Closest("abx", []string{"aby", "abz"}); got != "" {
		t.Errorf("Closest of a tie = %q, want \"\"", got)
	}
}

func TestUnknownDetail(t *testing.T) {
	for _, tc := range []struct{ name, near, want string }{
		{"contnet", "content", `unknown field "contnet" (did you mean "content"?)`},
		{"Role", "role", `unknown field "Role" (did you mean "role"? names are case-sensitive)`},
		{"messages[1].contnet", "content", `unknown field "messages[1].contnet" (did you mean "content"?)`},
		{"recall.TopK", "topK", `unknown field "recall.TopK" (did you mean "topK"? names are case-sensitive)`},
		{"x", "", `unknown field "x"`},
		{`a"b`, "", `unknown field "a\"b"`},
	} {
		if got := jsonkey.UnknownDetail(tc.name, tc.near); got != tc.want {
			t.Errorf("UnknownDetail(%q, %q) = %s, want %s", tc.name, tc.near, got, tc.want)
		}
	}
}
