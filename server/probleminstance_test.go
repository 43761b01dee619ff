package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestProblemInstanceAsSent: a problem's instance (RFC 9457: a URI
// reference) is the request's path as the client sent it, escapes kept.
// It was the decoded path: /v1/threads/a%2Fb/messages answered instance
// "/v1/threads/a/b/messages", a path the client did not ask for, and
// no%20such answered "no such", which is no URI reference at all.
func TestProblemInstanceAsSent(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one")
	for _, c := range []struct {
		name, path string
		status     int
	}{
		{"EscapedSlash", "/v1/threads/a%2Fb/messages", 400},
		{"EscapedSpace", "/v1/threads/no%20such/messages", 400},
		{"EscapedLetter", "/v1/threads/t-bo%62/messages?limit=0", 400},
		{"Plain", "/v1/threads/t-bob/messages?limit=0", 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("GET", c.path, bobToken, nil)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, c.status, r.body)
			}
			want, _, _ := strings.Cut(c.path, "?")
			if p := r.problem(t); p.Instance != want {
				t.Fatalf("instance %q, want %q", p.Instance, want)
			}
		})
	}
}
