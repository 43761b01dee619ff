package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestWMContentNotJSON: in schema mode a content that is not JSON is
// refused (422) saying content must be a JSON object matching the schema
// and at which byte it broke, naming the field; it was "invalid update:
// not valid JSON: invalid character 'o' in literal null (expecting 'u')",
// no place, no field (and "unexpected EOF" for a truncated object).
func TestWMContentNotJSON(t *testing.T) {
	h := newHarnessOn(t, false, server.Config{}, engine.Config{WorkingMemory: &working.Config{
		Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`), Scope: working.ScopeThread}})
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"hi"}]}`, 200)
	for _, c := range []struct{ content, want string }{
		{"not json", `invalid update: content must be a JSON object matching the schema: malformed JSON at byte 1: invalid character 'o' in literal null (expecting 'u')`},
		{`{"name":"Ann",}`, `invalid update: content must be a JSON object matching the schema: malformed JSON at byte 14: invalid character '}' looking for beginning of object key string`},
		{`["Ann"]`, `invalid update: content must be a JSON object matching the schema, got an array`},
		{`{"name":"Ann"`, `invalid update: content must be a JSON object matching the schema: malformed JSON at byte 13: unexpected end of JSON input`},
	} {
		r := h.do("PUT", "/v1/threads/t/working-memory", "", map[string]any{"content": c.content})
		p := r.problem(t)
		if r.status != 422 || p.Field != "content" || p.Detail != c.want {
			t.Errorf("content %q: status %d problem %+v, want 422 on content %q", c.content, r.status, p, c.want)
		}
	}
}

// TestWMContentObject is walk41 #5: in schema mode content given as a JSON
// object ({"content":{"city":"Nice"}}, what the 409 working-memory-mode's
// "send content" reads as) was a 400 `"content" must be a JSON string, not
// an object`. It is the state itself now, stored as its JSON text (numbers
// as written) and refused as that text in a string would be; the string
// form is kept, and null is left out (patch applies). Another JSON value
// is a 400 naming content, and so is an object in template mode.
func TestWMContentObject(t *testing.T) {
	schema := &working.Config{Schema: []byte(`{"type":"object","properties":{"city":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`), Scope: working.ScopeThread}
	h := newHarnessOn(t, false, server.Config{}, engine.Config{WorkingMemory: schema})
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"hi"}]}`, 200)
	const pattern = "/v1/threads/{thread}/working-memory"
	for _, c := range []struct {
		body    string
		version int64
		content string
	}{
		{`{"content":{"city":"Nice"}}`, 1, `{"city":"Nice"}`},
		{`{"content":"{\"city\":\"Oslo\"}"}`, 2, `{"city":"Oslo"}`},
		{`{"content":{"city":"Oslo","n":1234567890123456789}}`, 3, `{"city":"Oslo","n":1234567890123456789}`},
		{`{"content":null,"patch":{"n":null}}`, 4, `{"city":"Oslo"}`},
	} {
		var w server.WorkingMemory
		h.ok("PUT", pattern, "/v1/threads/t/working-memory", "", c.body, 200).decode(t, &w)
		if w.Mode != "schema" || w.Version != c.version || w.Content != c.content {
			t.Errorf("PUT %s: %+v, want version %d holding %s", c.body, w, c.version, c.content)
		}
	}
	for _, c := range []struct {
		body, field string
		status      int
		detail      string
	}{
		{`{"content":["Nice"]}`, "content", 400, `"content" must be a JSON string or object, not an array`},
		{`{"content":true}`, "content", 400, `"content" must be a JSON string or object, not a boolean`},
		{`{"content":{"city":5}}`, "", 422, "update violates the schema: at /city: got number, want string"},
		{`{"content":{"city":"Nice"},"patch":{"city":"Oslo"}}`, "content", 400, "send exactly one of content (the whole state) and patch (a JSON Merge Patch)"},
	} {
		r := h.do("PUT", "/v1/threads/t/working-memory", "", c.body)
		if p := r.problem(t); r.status != c.status || p.Detail != c.detail || p.Field != c.field {
			t.Errorf("PUT %s: status %d problem %+v, want %d on %q: %q", c.body, r.status, p, c.status, c.field, c.detail)
		}
	}

	h = newHarness(t, false, server.Config{}) // template mode
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"hi"}]}`, 200)
	for body, want := range map[string]string{
		`{"content":{"city":"Nice"}}`: `"content" must be a JSON string in template mode (the markdown document), not an object`,
		`{"content":5}`:               `"content" must be a JSON string or object, not a number`,
	} {
		r := h.do("PUT", "/v1/threads/t/working-memory", "", body)
		if p := r.problem(t); r.status != 400 || p.Field != "content" || p.Detail != want {
			t.Errorf("template mode, PUT %s: status %d problem %+v, want 400 on content %q", body, r.status, p, want)
		}
	}
	var w server.WorkingMemory
	h.ok("PUT", pattern, "/v1/threads/t/working-memory", "", `{"content":"# User\n- Name: Ana\n"}`, 200).decode(t, &w)
	if w.Mode != "template" || w.Content != "# User\n- Name: Ana\n" {
		t.Errorf("template mode, string content: %+v", w)
	}
}
