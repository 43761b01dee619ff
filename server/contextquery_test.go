package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestContextQueryRecallOff: POST /v1/context with a query but recall off
// (no "recall" in the request, none configured) records the query in the
// run's memctx record, where erasure looks for what the run saw, and says
// in the answer's notice that nothing was recalled and how to recall
// (before: nothing said so; mnemo context said it on stderr). With recall
// on, or without a query, there is no notice.
func TestContextQueryRecallOff(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "the spare key is under the flowerpot", "noted")
	var c server.Context
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "query": "where is the key"}, 200).decode(t, &c)
	if c.MemCtx == nil || c.MemCtx.Query != "where is the key" {
		t.Fatalf("memctx %+v: want the query recorded", c.MemCtx)
	}
	if !strings.Contains(c.Notice, "recall is off") || !strings.Contains(c.Notice, `"recall"`) || !strings.Contains(c.Notice, "memctx") {
		t.Errorf("notice %q: want it to say recall is off, the query was recorded in memctx, and to give \"recall\"", c.Notice)
	}
	for _, body := range []map[string]any{
		{"threadId": "t-bob", "query": "where is the key", "recall": map[string]any{}},
		{"threadId": "t-bob"},
	} {
		var c server.Context
		h.ok("POST", "/v1/context", "/v1/context", bobToken, body, 200).decode(t, &c)
		if c.Notice != "" {
			t.Errorf("%v: notice %q, want none", body, c.Notice)
		}
	}
}
