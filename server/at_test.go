package server_test

import (
	"strings"
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

// TestZeroTime: an explicit zero time (0001-01-01T00:00:00Z, what a
// client's unset time value marshals to) is refused naming the field,
// where an absent one means the server clock: "at" of /v1/search and
// /v1/context, and a message's createdAt. Before, each silently meant
// now.
func TestZeroTime(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	const zero = "0001-01-01T00:00:00Z"
	for _, c := range []struct {
		path, route string
		body        map[string]any
		field       string
	}{
		{"/v1/search", "/v1/search", map[string]any{"resourceId": "res-alice", "query": "garden", "at": zero}, "at"},
		{"/v1/context", "/v1/context", map[string]any{"threadId": "t1", "resourceId": "res-alice", "query": "garden", "at": zero}, "at"},
		{"/v1/threads/t1/messages", "/v1/threads/{thread}/messages", map[string]any{"resourceId": "res-alice",
			"messages": []map[string]any{{"role": "user", "content": "hi"}, {"role": "user", "content": "hi", "createdAt": zero}}}, "messages[1].createdAt"},
	} {
		p := h.do("POST", c.path, aliceToken, c.body).problem(t)
		if p.Status != 400 || p.Field != c.field || !strings.Contains(p.Detail, "zero time") {
			t.Errorf("%s with a zero time: %+v, want 400 naming %s", c.path, p, c.field)
		}
	}
	// Absent: the server clock.
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", aliceToken, map[string]any{"resourceId": "res-alice",
		"messages": []map[string]any{{"role": "user", "content": "hi"}}}, 200)
	h.ok("POST", "/v1/search", "/v1/search", aliceToken, map[string]any{"resourceId": "res-alice", "query": "garden"}, 200)
}
