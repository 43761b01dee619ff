package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestAskedAt: POST /v1/search and /v1/context take "at", when the
// question is asked (RFC 3339): the turn said the day before ranks first
// among turns of the same words, and the run's memctx records the time.
func TestAskedAt(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for _, d := range []string{"08", "09", "10"} {
		h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t"+d+"/messages", aliceToken, map[string]any{"resourceId": "res-alice",
			"messages": []map[string]any{{"role": "user", "content": "we talked about the garden plans", "createdAt": "2023-05-" + d + "T10:00:00Z"}}}, 200)
	}
	if err := h.e.SyncIndexes(t.Context()); err != nil {
		t.Fatal(err)
	}
	const q = "what did we talk about yesterday?"
	for at, want := range map[string]string{"2023-05-10T15:00:00Z": "t09", "2023-05-11T01:00:00+02:00": "t09", "2023-05-11T09:00:00Z": "t10"} {
		var sr engine.SearchResult
		h.ok("POST", "/v1/search", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": q, "at": at,
			"recall": map[string]any{"topK": 3, "messageRange": 0}}, 200).decode(t, &sr)
		if len(sr.Hits) == 0 || sr.Hits[0].Message.ThreadID != want {
			t.Errorf("search at %s: hits %+v, want %s first", at, sr.Hits, want)
		}
	}
	var c server.Context
	h.ok("POST", "/v1/context", "/v1/context", aliceToken, map[string]any{"threadId": "t08", "runId": "run-at", "recentN": -1, "query": q,
		"at": "2023-05-10T15:00:00Z", "recall": map[string]any{"topK": 1}}, 200).decode(t, &c)
	if c.MemCtx == nil || c.MemCtx.QueryAt != "2023-05-10T15:00:00.000Z" || len(c.MemCtx.Recalled) == 0 || c.MemCtx.Recalled[0].ThreadID != "t09" {
		t.Fatalf("context at 10 May: memctx %+v", c.MemCtx)
	}
	if p := h.do("POST", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": q, "at": "yesterday"}).problem(t); p.Status != 400 {
		t.Fatalf("at \"yesterday\": %+v", p)
	}
}
