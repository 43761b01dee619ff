package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestNumbersKeptAsWritten: a number in a message's metadata or in a
// working-memory patch is stored and answered digit for digit. Decoded into
// float64 on the way in, 1234567890123456789 (a 64-bit id) was stored as
// 1234567890123456800.
func TestNumbersKeptAsWritten(t *testing.T) {
	h := newHarnessOn(t, false, server.Config{}, engine.Config{WorkingMemory: &working.Config{
		Schema: []byte(`{"type":"object","properties":{"orderId":{"type":"integer"}}}`), Scope: working.ScopeThread}})
	body := `{"resourceId":"r","messages":[{"role":"user","content":"where is my order?",` +
		`"metadata":{"orderId":1234567890123456789,"max":18446744073709551615,"nested":{"id":9007199254740993}}}]}`
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", body, 200)
	got := h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t/messages", "", nil, 200)
	for _, want := range []string{`"orderId":1234567890123456789`, `"max":18446744073709551615`, `"id":9007199254740993`} {
		if !strings.Contains(string(got.body), want) {
			t.Errorf("messages answer lacks %s: %s", want, got.body)
		}
	}
	r := h.do("POST", "/v1/threads/t/messages", "", `{"resourceId":"r","messages":[{"role":"user","content":"x","metadata":{"n":1e999}}]}`)
	if p := r.problem(t); r.status != 400 || p.Field != "messages[0].metadata" || !strings.Contains(p.Detail, "1e999") {
		t.Errorf("metadata 1e999: %d %+v, want a 400 naming messages[0].metadata and the number", r.status, p)
	}
	h.ok("PUT", "/v1/threads/{thread}/working-memory", "/v1/threads/t/working-memory", "", `{"patch":{"orderId":1234567890123456789}}`, 200)
	wm := h.ok("GET", "/v1/threads/{thread}/working-memory", "/v1/threads/t/working-memory", "", nil, 200)
	if want := `1234567890123456789`; !strings.Contains(strings.ReplaceAll(string(wm.body), `\"`, `"`), want) {
		t.Errorf("working memory lacks %s: %s", want, wm.body)
	}
}
