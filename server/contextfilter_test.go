package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestContextBadFilter: a bad recall filter on POST /v1/context is a 400
// on the field recall.filter, as on /v1/search, said once (before: field
// "recall", "invalid recall: recall: invalid filter …").
func TestContextBadFilter(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello")
	for _, path := range []string{"/v1/context", "/v1/search"} {
		body := map[string]any{"threadId": "t-bob", "resourceId": "res-bob", "query": "x", "recall": map[string]any{"filter": map[string]any{"seq": map[string]any{"$like": 1}}}}
		if path == "/v1/search" {
			delete(body, "threadId")
		}
		r := h.do("POST", path, bobToken, body)
		p := r.problem(t)
		if r.status != 400 || p.Field != "recall.filter" || strings.Contains(p.Detail, "recall: recall") || strings.Contains(p.Detail, "invalid recall:") || !strings.Contains(p.Detail, "$like") {
			t.Errorf("%s: status %d problem %+v, want 400 on recall.filter naming $like once", path, r.status, p)
		}
	}
}
