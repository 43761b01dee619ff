package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestContextAnswerTooLargePending: POST /v1/context whose thread ends in
// a pending turn (five user messages of 30 KB no answer follows) over
// limits.maxAnswerBytes answers 422 answer-too-large naming the pending
// turn and no field: the window holds the whole turn whatever recentN,
// and it was read uncounted (recentN 1 answered 150 KB under a bound of
// 100 KB).
func TestContextAnswerTooLargePending(t *testing.T) {
	var pending []map[string]any
	for i := range 5 {
		pending = append(pending, map[string]any{"role": "user", "content": strings.Repeat("harbour ", 30_000/8) + itoa(i)})
	}
	h2 := newHarnessOn(t, false, server.Config{}, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000}})
	h2.seed("t2", "r1", "", "hello", "hi")
	h2.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t2/messages", "", map[string]any{"resourceId": "r1", "messages": pending}, 200)
	p := h2.ok("POST", "/v1/context", "/v1/context", "", map[string]any{"threadId": "t2", "recentN": 1}, 422).problem(t)
	if p.Field != "" || !strings.HasPrefix(p.Detail, "the thread's pending turn (5 messages no assistant answer follows yet") {
		t.Fatalf("pending turn over the bound: %+v, want no field and the pending turn named", p)
	}
}
