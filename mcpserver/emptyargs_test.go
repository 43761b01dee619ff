package mcpserver_test

import (
	"strings"
	"testing"
)

// TestEmptyIDArguments: an id argument given as "" (resourceId, threadId,
// messageId, runId) is refused naming it, as the HTTP API refuses
// ?resourceId= ; before, "" read as left out (memory_search with
// resourceId "" searched the token's only resource, memory_delete with
// threadId "t1" and resourceId "" erased the thread), and so is a
// message's id "" in memory_append (a ULID was made, as for one left out).
func TestEmptyIDArguments(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hello there"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	for _, c := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"memory_append", map[string]any{"threadId": "t1", "resourceId": "", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId"},
		{"memory_search", map[string]any{"query": "hello", "resourceId": ""}, "resourceId"},
		{"memory_search", map[string]any{"query": "hello", "threadId": ""}, "threadId"},
		{"memory_context", map[string]any{"threadId": "t1", "resourceId": ""}, "resourceId"},
		{"memory_context", map[string]any{"threadId": "t1", "runId": ""}, "runId"},
		{"working_memory_get", map[string]any{"resourceId": ""}, "resourceId"},
		{"working_memory_get", map[string]any{"threadId": ""}, "threadId"},
		{"working_memory_update", map[string]any{"resourceId": "", "patch": map[string]any{"a": 1}}, "resourceId"},
		{"memory_delete", map[string]any{"threadId": "t1", "resourceId": ""}, "resourceId"},
		// a message id "" was read as left out: a ULID was made
		{"memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "x", "id": "m1"}, {"role": "user", "content": "y", "id": ""}}}, "messages[1].id"},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.Contains(text, c.field) || !strings.Contains(text, "empty") {
			t.Errorf("%s %v: failed %v, %q; want refused naming %s as empty", c.tool, c.args, failed, text, c.field)
		}
	}
	if failed, text := call(t, cs, "memory_search", map[string]any{"query": "hello", "threadId": "t1"}, nil); failed {
		t.Fatalf("search after: %s", text)
	}
}

// TestInvalidIDArgument: an invalid id argument is refused naming the
// argument (threadId), not the HTTP path's name the server's error
// carries ("field thread" named nothing a tool takes).
func TestInvalidIDArgument(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_append", map[string]any{"threadId": "bad!", "messages": []map[string]any{{"role": "user", "content": "x"}}}},
		{"memory_search", map[string]any{"query": "hello", "threadId": "bad!"}},
		{"memory_context", map[string]any{"threadId": "bad!"}},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		if !failed || !strings.Contains(text, "(field threadId)") {
			t.Errorf("%s: failed %v, %q; want refused naming threadId", c.tool, failed, text)
		}
	}
}
