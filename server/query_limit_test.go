package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestQueryTooLong: a query over the engine's limit
// (engine.DefaultMaxQueryBytes) is a 400 problem naming the field "query"
// on POST /v1/search and /v1/context, while a message as long is stored.
func TestQueryTooLong(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	long := strings.Repeat("porto ", engine.DefaultMaxQueryBytes/6+1)
	h.seed("t-bob", "res-bob", bobToken, "hello", "hi", long)
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/search", map[string]any{"resourceId": "res-bob", "query": long}},
		{"/v1/context", map[string]any{"threadId": "t-bob", "query": long, "recall": map[string]any{"topK": 3}}},
	} {
		t.Run(strings.TrimPrefix(c.path, "/v1/"), func(t *testing.T) {
			r := h.do("POST", c.path, bobToken, c.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != "query" || !strings.Contains(p.Detail, "at most 16384 bytes") {
				t.Fatalf("problem %+v, want field query and the limit", p)
			}
			h.validate("POST", c.path, r)
		})
	}
	// The newest user message, as long, is the implicit query: cut, not refused.
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "recall": map[string]any{"topK": 3}}, 200)
}

// TestSearchBlankQuery: a search query of white space only is a 400 naming
// "query", as `mnemo search "  "` refuses it ("the QUERY is empty"); it
// was searched, and the vector channel answered hits ranked by their
// likeness to blanks. The MCP tool memory_search shares the check.
func TestSearchBlankQuery(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello", "hi")
	for _, q := range []string{" ", "  \t\n ", "\u00a0\u2003"} {
		r := h.do("POST", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": q})
		if r.status != 400 {
			t.Fatalf("query %q: status %d, want 400: %s", q, r.status, r.body)
		}
		if p := r.problem(t); p.Field != "query" || !strings.Contains(p.Detail, "white space only") {
			t.Fatalf("query %q: problem %+v, want field query", q, p)
		}
		h.validate("POST", "/v1/search", r)
	}
	h.ok("POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": " hello "}, 200)
}
