package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestSearchLoneHitScore: the README's first search (one message in the
// resource) answered "score": 0 for a hit that both channels found, since
// z-score fusion of one candidate is 0. A lone hit now scores its
// channels' presence.
func TestSearchLoneHitScore(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-cat", "res-alice", aliceToken, "my cat Miso loves sardines")
	var res engine.SearchResult
	h.ok("POST", "/v1/search", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": "what does the cat eat, sardines?"}, 200).decode(t, &res)
	if len(res.Hits) != 1 {
		t.Fatalf("hits %+v, want the one message", res.Hits)
	}
	hit := res.Hits[0]
	if hit.Lexical == nil || hit.Vector == nil || hit.Score == nil || *hit.Score <= 0 {
		t.Fatalf("lone hit found by both channels: score %v (lexical %v, vector %v), want > 0", hit.Score, hit.Lexical, hit.Vector)
	}
}

// TestUnroutedProblems: a path no route has and a route asked with another
// method answer problem+json like every other error (they were net/http's
// text/plain "404 page not found" and "Method Not Allowed"). The detail
// names the path as sent, escaped, as the access log does: /v1/a%2Fb is
// not the path /v1/a/b of another route.
func TestUnroutedProblems(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for _, c := range []struct {
		method, path string
		status       int
		typ, allow   string
		detail       string
	}{
		{"GET", "/v1/nope", 404, "not-found", "", "no route /v1/nope"},
		{"GET", "/v1/no%2Fpe", 404, "not-found", "", "no route /v1/no%2Fpe"},
		{"GET", "/v1/no%20pe", 404, "not-found", "", "no route /v1/no%20pe"},
		{"PATCH", "/v1/threads/a%2Fb", 405, "method-not-allowed", "GET, DELETE, HEAD", "PATCH /v1/threads/a%2Fb: this path takes GET, DELETE, HEAD"},
		{"DELETE", "/v1/search", 405, "method-not-allowed", "POST", ""},
		{"PATCH", "/v1/threads/t1", 405, "method-not-allowed", "GET, DELETE, HEAD", ""},
		{"POST", "/healthz", 405, "method-not-allowed", "GET, HEAD", ""},
	} {
		r := h.do(c.method, c.path, aliceToken, nil)
		if r.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, r.status, r.body, c.status)
			continue
		}
		p := r.problem(t)
		if p.Type != server.ProblemTypeBase+c.typ {
			t.Errorf("%s %s: type %s, want %s", c.method, c.path, p.Type, c.typ)
		}
		if c.detail != "" && p.Detail != c.detail {
			t.Errorf("%s %s: detail %q, want %q", c.method, c.path, p.Detail, c.detail)
		}
		if got := r.header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
	// Routed paths are untouched.
	if r := h.do("GET", "/healthz", "", nil); r.status != 200 {
		t.Errorf("GET /healthz: %d", r.status)
	}
}
