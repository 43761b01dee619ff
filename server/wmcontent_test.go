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
