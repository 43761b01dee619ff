package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestDotIDArguments: a thread, message or run id "." or ".." (which no
// URL path can hold), or one beginning with "erased-" (erasure's
// tombstones), is refused by the tools that would store something
// under it, naming the argument, saying the rule and what the id broke,
// in the server's one form of id errors (the engine's ids said `invalid
// runId: must be …` without what broke); nothing is stored.
func TestDotIDArguments(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	for _, c := range []struct {
		tool  string
		args  map[string]any
		field string
		got   string // what the id broke, after "; got "
	}{
		{mcpserver.ToolAppend, map[string]any{"threadId": "..", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "threadId", `".."`},
		{mcpserver.ToolAppend, map[string]any{"threadId": "t1", "messages": []map[string]any{{"id": ".", "role": "user", "content": "x"}}}, "messages[0].id", `"."`},
		// Not the token's resource: the rule, not "Not found".
		{mcpserver.ToolAppend, map[string]any{"threadId": "t1", "resourceId": "..", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId", `".."`},
		{mcpserver.ToolContext, map[string]any{"threadId": "t1", "runId": ".."}, "runId", `".."`},
		{mcpserver.ToolContext, map[string]any{"threadId": "t1", "runId": "a b"}, "runId", `" " at byte 1`},
		{mcpserver.ToolAppend, map[string]any{"threadId": "t1", "messages": []map[string]any{{"id": "a b", "role": "user", "content": "x"}}}, "messages[0].id", `" " at byte 1`},
		{mcpserver.ToolContext, map[string]any{"threadId": ".."}, "threadId", `".."`},                        // a new conversation's run
		{mcpserver.ToolContext, map[string]any{"threadId": "t-new", "resourceId": "."}, "resourceId", `"."`}, // not "Not found"
		{mcpserver.ToolWMUpdate, map[string]any{"threadId": ".", "content": "{}"}, "threadId", `"."`},
		{mcpserver.ToolWMUpdate, map[string]any{"threadId": "t-new", "resourceId": "..", "content": "{}"}, "resourceId", `".."`}, // not "Not found"
		{mcpserver.ToolWMUpdate, map[string]any{"resourceId": ".", "content": "{}"}, "resourceId", `"."`},
		// The prefix of erasure's tombstones (engine.TombstonePrefix).
		{mcpserver.ToolAppend, map[string]any{"threadId": "erased-x", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "threadId", `"erased-x", which begins with the reserved prefix "erased-"`},
		{mcpserver.ToolAppend, map[string]any{"threadId": "t1", "resourceId": "erased-r", "messages": []map[string]any{{"role": "user", "content": "x"}}}, "resourceId", `"erased-r", which begins with the reserved prefix "erased-"`},
		{mcpserver.ToolContext, map[string]any{"threadId": "erased-x"}, "threadId", `"erased-x", which begins with the reserved prefix "erased-"`},
	} {
		failed, text := call(t, cs, c.tool, c.args, nil)
		// One form with the server's own ids (server/badid.go): FIELD,
		// the rule, then what the id broke.
		want := "Invalid input: " + c.field + ` must be 1-128 characters of [A-Za-z0-9_.:@-], and not "." or ".." (which URLs read as dot segments), and not beginning with "erased-" (reserved for erased owners); got ` + c.got + " (field " + c.field + ")"
		if !failed || text != want {
			t.Errorf("%s %v: failed %v, %q; want %q", c.tool, c.args, failed, text, want)
		}
	}
	for _, id := range []string{".", "..", "t1", "erased-x"} {
		if _, err := e.GetThread(t.Context(), id); err == nil {
			t.Errorf("thread %q stored", id)
		}
	}
}

// TestDotIDArgumentsDescribed: every argument naming something a tool
// stores under it (TestDotIDArguments' refusals, and the resource of an
// append or an update) says the id rule in its description, "." and ".."
// included, so a model choosing an id reads it before it is refused.
func TestDotIDArgumentsDescribed(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Description string            `json:"description"`
		Properties  map[string]schema `json:"properties"`
		Items       *schema           `json:"items"`
	}
	tools := map[string]schema{}
	for _, tool := range lt.Tools {
		b, err := json.Marshal(tool.InputSchema)
		var s schema
		if err != nil || json.Unmarshal(b, &s) != nil {
			t.Fatalf("%s: input schema %s: %v", tool.Name, b, err)
		}
		tools[tool.Name] = s
	}
	for tool, args := range map[string][]string{
		mcpserver.ToolAppend:   {"threadId", "resourceId", "messages[].id"},
		mcpserver.ToolContext:  {"threadId", "resourceId", "runId"},
		mcpserver.ToolWMUpdate: {"threadId", "resourceId"},
	} {
		for _, arg := range args {
			s := tools[tool]
			if name, ok := strings.CutPrefix(arg, "messages[]."); ok {
				s = *s.Properties["messages"].Items
				arg = name
			}
			d := s.Properties[arg].Description
			if !strings.Contains(d, "1-128 characters of A-Za-z0-9_.:@-") || !strings.Contains(d, `not "." or ".."`) {
				t.Errorf("%s %s: description %q does not state the id rule", tool, arg, d)
			}
		}
	}
}
