package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestSearchThread: POST /v1/search with a threadId searches that thread
// (scope thread, as the MCP tool memory_search and mnemo search --thread
// do) instead of ignoring it; with recall.scope "resource" too, it is a 400
// naming threadId.
func TestSearchThread(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-a", "res-bob", bobToken, "the garden needs water")
	h.seed("t-b", "res-bob", bobToken, "the garden is dry and needs water", "water the garden tonight")
	var res struct {
		Hits []struct{ Message struct{ ThreadID string } }
	}
	h.ok("POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "threadId": "t-a", "query": "garden water"}, 200).decode(t, &res)
	if len(res.Hits) == 0 {
		t.Fatal("no hit")
	}
	for _, hit := range res.Hits {
		if hit.Message.ThreadID != "t-a" {
			t.Fatalf("hit of %s: threadId t-a searched the resource", hit.Message.ThreadID)
		}
	}
	r := h.do("POST", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "threadId": "t-a", "query": "garden", "recall": map[string]any{"scope": "resource"}})
	if r.status != 400 {
		t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
	}
	if p := r.problem(t); p.Field != "threadId" {
		t.Fatalf("problem %+v, want field threadId", p)
	}
}
