package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/working"
)

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

// TestWMContentObject is walk41 #5 over MCP: in schema mode
// working_memory_update's content may be the JSON object itself (it was
// refused, `Invalid input: "content" must be a JSON string, not an
// object`), stored as its JSON text with its numbers as the client wrote
// them; its text as a string is still taken. Another JSON value is refused
// naming content, in the API's words, and so is an object in template
// mode.
func TestWMContentObject(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	var w struct {
		Mode    string `json:"mode"`
		Content string `json:"content"`
		Version int64  `json:"version"`
	}
	for i, c := range []struct {
		args json.RawMessage
		want string
	}{
		{json.RawMessage(`{"threadId":"t1","content":{"city":"Nice"}}`), `{"city":"Nice"}`},
		{json.RawMessage(`{"threadId":"t1","content":"{\"city\":\"Oslo\"}"}`), `{"city":"Oslo"}`},
		{json.RawMessage(`{"threadId":"t1","content":{"name":"Ana","city":"Oslo"}}`), `{"city":"Oslo","name":"Ana"}`},
	} {
		if failed, text := call(t, cs, "working_memory_update", c.args, &w); failed || w.Mode != "schema" || w.Version != int64(i+1) || w.Content != c.want {
			t.Errorf("content %s: failed %v %s %+v, want version %d holding %s", c.args, failed, text, w, i+1, c.want)
		}
	}
	failed, text := call(t, cs, "working_memory_update", json.RawMessage(`{"threadId":"t1","content":["Nice"]}`), nil)
	if want := `Invalid input: "content" must be a JSON string or object, not an array (field content)`; !failed || text != want {
		t.Errorf("content an array: failed %v, %q; want %q", failed, text, want)
	}

	// The SDK decodes and encodes the arguments again to validate them:
	// an object's numbers would reach the handler as float64s.
	num := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`), Scope: working.ScopeThread}})
	cs = connect(t, num, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	if failed, text := call(t, cs, "working_memory_update", json.RawMessage(`{"threadId":"t1","content":{"n":1234567890123456789}}`), &w); failed || w.Content != `{"n":1234567890123456789}` {
		t.Errorf("content with a large number: failed %v %s %+v, want it as written", failed, text, w)
	}
	if failed, text := call(t, cs, "working_memory_update", json.RawMessage(`{"threadId":"t1","patch":{"n":1234567890123456788}}`), &w); failed || w.Content != `{"n":1234567890123456788}` {
		t.Errorf("patch with a large number: failed %v %s %+v, want it as written", failed, text, w)
	}

	tmpl := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# Notes\n", Scope: working.ScopeThread}})
	cs = connect(t, tmpl, alice)
	if failed, text := call(t, cs, "memory_append", map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": "hi"}}}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	failed, text = call(t, cs, "working_memory_update", json.RawMessage(`{"threadId":"t1","content":{"city":"Nice"}}`), nil)
	if want := `Invalid input: "content" must be a JSON string in template mode (the markdown document), not an object (field content)`; !failed || text != want {
		t.Errorf("template mode, content an object: failed %v, %q; want %q", failed, text, want)
	}
	if failed, text := call(t, cs, "working_memory_update", map[string]any{"threadId": "t1", "content": "# Notes\n- Ana\n"}, &w); failed || w.Content != "# Notes\n- Ana\n" {
		t.Errorf("template mode, content a string: failed %v %s %+v", failed, text, w)
	}
}
