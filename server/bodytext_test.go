package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyInvalidText: a body that is not valid UTF-8, or whose JSON
// escapes encode half a UTF-16 surrogate pair, is a 400 naming the offset
// and nothing is stored, as mnemo ingest refuses such a record. Before,
// encoding/json turned either into U+FFFD and the altered text was stored.
func TestBodyInvalidText(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello")
	for name, content := range map[string]string{
		"invalid byte":   "bad \xff byte",
		"lone surrogate": `bad \ud800 half`,
		"low half first": `bad \udc00\ud800 halves`,
	} {
		body := `{"resourceId":"res-bob","messages":[{"role":"user","content":"` + content + `"}]}`
		r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, body)
		if p := r.problem(t); r.status != 400 || !strings.Contains(p.Detail, "not valid UTF-8") || !strings.Contains(p.Detail, "at byte 66") {
			t.Errorf("%s: status %d problem %+v, want 400 saying the body is not valid UTF-8 at byte 66 (counted from 0)", name, r.status, p)
		}
	}
	r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"pair \ud83d\ude00 ok"}]}`)
	if r.status != 200 {
		t.Errorf("a surrogate pair: status %d %s, want 200", r.status, r.body)
	}
	if r := h.do("GET", "/v1/threads/t-bob/messages", bobToken, nil); strings.Contains(string(r.body), "\ufffd") || strings.Count(string(r.body), `"seq"`) != 2 {
		t.Errorf("stored: %s, want hello and the pair only, no U+FFFD", r.body)
	}
}
