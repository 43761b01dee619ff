package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyByteOrderMark: a body that begins with a UTF-8 byte-order mark
// (a file saved by Notepad, sent with curl --data-binary @file) is read
// as if the mark were not there, and an error in it names its byte
// counted from the body's first byte, the mark's included. A mark further
// on, and a body in UTF-16, are 400s that say so. Before (walk53), each
// was "malformed JSON at byte 0" (or "not valid UTF-8" for UTF-16), the
// mark unnamed.
func TestBodyByteOrderMark(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const bom = "\uFEFF"
	appendPath := "/v1/threads/t-bob/messages"
	cases := []struct {
		name, path, body string
		status           int
		detail           string
	}{
		{"Append", appendPath, bom + `{"resourceId":"res-bob","messages":[{"role":"user","content":"hello"}]}`, 200, ""},
		{"Search", "/v1/search", bom + `{"resourceId":"res-bob","query":"hello"}`, 200, ""},
		{"ThenSpace", "/v1/search", bom + "\r\n  " + `{"resourceId":"res-bob","query":"hello"}`, 200, ""},
		{"Malformed", "/v1/search", bom + `{"resourceId":"res-bob",}`, 400, "malformed JSON at byte 27"},
		{"Trailing", "/v1/search", bom + `{"resourceId":"res-bob","query":"x"}}`, 400, "at byte 39"},
		{"Alone", "/v1/search", bom, 400, "the body is empty"},
		{"Two", "/v1/search", bom + bom + `{"query":"x"}`, 400, "malformed JSON at byte 3: a UTF-8 byte-order mark (EF BB BF, U+FEFF), which only the body's start may hold"},
		{"Inside", "/v1/search", `{` + bom + `"query":"x"}`, 400, "malformed JSON at byte 1: a UTF-8 byte-order mark"},
		{"UTF16LE", "/v1/search", "\xff\xfe{\x00}\x00", 400, "the body is UTF-16 (it begins with the byte-order mark FFFE): send JSON as UTF-8"},
		{"UTF16BE", "/v1/search", "\xfe\xff\x00{\x00}", 400, "the body is UTF-16 (it begins with the byte-order mark FEFF)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", c.path, bobToken, c.body)
			if r.status != c.status {
				t.Fatalf("status %d %s, want %d", r.status, r.body, c.status)
			}
			if c.status == 200 {
				return
			}
			if p := r.problem(t); !strings.Contains(p.Detail, c.detail) {
				t.Fatalf("detail %q, want it to hold %q", p.Detail, c.detail)
			}
		})
	}
	r := h.do("GET", appendPath, bobToken, nil)
	if !strings.Contains(string(r.body), `"content":"hello"`) || strings.Contains(string(r.body), bom) {
		t.Fatalf("stored %s, want the text as sent, no mark", r.body)
	}
}
