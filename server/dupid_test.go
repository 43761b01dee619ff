package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestAppendIDTwiceInBody: a body giving a message id twice with other
// content is a 400 naming messages[1].id and saying the id is given twice
// in the request; it was a 409 "a message id is already stored with
// different content, or in another thread" (field messages), though
// nothing was stored.
func TestAppendIDTwiceInBody(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	r := h.do("POST", "/v1/threads/t-bob/messages", bobToken, `{"resourceId":"res-bob","messages":[{"id":"dupe2","role":"user","content":"x"},{"id":"dupe2","role":"user","content":"y"}]}`)
	p := r.problem(t)
	if r.status != 400 || p.Field != "messages[1].id" || !strings.Contains(p.Detail, `"dupe2" is given twice in the request`) {
		t.Errorf("status %d problem %+v, want 400 on messages[1].id saying the id is given twice in the request", r.status, p)
	}
	r = h.do("POST", "/v1/threads/t-bob/messages", bobToken, `{"resourceId":"res-bob","messages":[{"id":"same","role":"user","content":"x"},{"id":"same","role":"user","content":"x"}]}`)
	if r.status != 200 {
		t.Errorf("the same message twice: status %d %s, want 200", r.status, r.body)
	}
}
