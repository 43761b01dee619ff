package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyTrailingData: a request body is one JSON object and nothing
// after it but whitespace. A stray "}" or "]" after the object was
// accepted (encoding/json's Decoder.More is false before one), and the
// append stored the message; now it is a 400 naming the byte.
func TestBodyTrailingData(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	appendPath := "/v1/threads/t-bob/messages"
	msg := `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"}]}`
	for _, c := range []struct {
		name, path, body, detail string
	}{
		{"ErrBrace", appendPath, msg + `}`, "unexpected data after the JSON value at byte 67"},
		{"ErrBracket", appendPath, msg + `]`, "unexpected data after the JSON value at byte 67"},
		{"ErrBracketAfterNewline", appendPath, msg + "\n]", "unexpected data after the JSON value at byte 68"},
		{"ErrSecondObject", appendPath, msg + ` {}`, "unexpected data after the JSON value at byte 68"},
		{"ErrSearchBrace", "/v1/search", `{"resourceId":"res-bob","query":"x"}}`, "unexpected data after the JSON value at byte 36"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pattern := "/v1/threads/{thread}/messages"
			if c.path == "/v1/search" {
				pattern = c.path
			}
			r := h.do("POST", c.path, bobToken, c.body)
			if got, want := r.status, 400; got != want {
				t.Fatalf("status %d, want %d: %s", got, want, r.body)
			}
			p := r.problem(t)
			if p.Type != server.ProblemTypeBase+"invalid-input" || p.Detail != c.detail || p.Field != "" {
				t.Fatalf("problem %+v, want invalid-input %q", p, c.detail)
			}
			h.validate("POST", pattern, r)
		})
	}
	// Nothing was stored by the refused appends; trailing whitespace is
	// JSON's and passes.
	h.ok("POST", "/v1/threads/{thread}/messages", appendPath, bobToken, msg+" \r\n\t", 200)
	r := h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, nil, 200)
	var page struct{ Messages []struct{ Seq int } }
	r.decode(t, &page)
	if got, want := len(page.Messages), 1; got != want {
		t.Fatalf("messages stored %d, want %d", got, want)
	}
}
