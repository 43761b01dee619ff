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

// TestSearchRecallWording: POST /v1/search words a bad filter as
// /v1/context does ("invalid recall.filter: at seq …"; it said "invalid
// filter at seq …"), and scope thread without threadId is a 400 on
// recall.scope saying it needs threadId (it was "invalid query: scope
// thread needs a thread" on the field recall, while the query was fine).
func TestSearchRecallWording(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello")
	r := h.do("POST", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "x", "recall": map[string]any{"filter": map[string]any{"seq": map[string]any{"$like": 1}}}})
	if p := r.problem(t); r.status != 400 || p.Field != "recall.filter" || !strings.HasPrefix(p.Detail, "invalid recall.filter: at seq") {
		t.Errorf("bad filter: status %d problem %+v, want 400 on recall.filter reading \"invalid recall.filter: at seq …\"", r.status, p)
	}
	r = h.do("POST", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "x", "recall": map[string]any{"scope": "thread"}})
	if p := r.problem(t); r.status != 400 || p.Field != "recall.scope" || strings.Contains(p.Detail, "query") || !strings.Contains(p.Detail, "threadId") {
		t.Errorf("scope thread without threadId: status %d problem %+v, want 400 on recall.scope naming threadId", r.status, p)
	}
}
