package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestAskedAt: memory_search and memory_context take "at", when the
// question is asked (RFC 3339), as POST /v1/search and /v1/context do: the
// turn said the day before ranks first among turns of the same words, the
// run's memctx records the time, and a malformed time is refused naming
// the field "at" with HTTP's words. Before, the tools had no "at" (the
// question's relative dates were resolved at the server clock only).
func TestAskedAt(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	ctx := context.Background()
	for _, d := range []int{8, 9, 10} {
		th := []string{"", "", "", "", "", "", "", "", "t08", "t09", "t10"}[d]
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "res-alice", Messages: []engine.Message{
			{Role: engine.RoleUser, Content: "we talked about the garden plans", CreatedAt: time.Date(2023, 5, d, 10, 0, 0, 0, time.UTC)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	const q = "what did we talk about yesterday?"
	for at, want := range map[string]string{"2023-05-10T15:00:00Z": "t09", "2023-05-11T01:00:00+02:00": "t09", "2023-05-11T09:00:00Z": "t10"} {
		var sr mcpserver.SearchOutput
		if failed, text := call(t, cs, "memory_search", map[string]any{"query": q, "at": at, "topK": 3}, &sr); failed {
			t.Fatalf("search at %s: %s", at, text)
		}
		if len(sr.Hits) == 0 || sr.Hits[0].ThreadID != want {
			t.Errorf("search at %s: hits %+v, want %s first", at, sr.Hits, want)
		}
	}
	var c mcpserver.ContextOutput
	if failed, text := call(t, cs, "memory_context", map[string]any{"threadId": "t08", "runId": "run-at", "query": q, "at": "2023-05-10T15:00:00Z", "topK": 1}, &c); failed {
		t.Fatalf("context: %s", text)
	}
	hit := ""
	for _, m := range c.Messages {
		if m.Reason == "hit" && hit == "" {
			hit = m.ThreadID
		}
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://runs/run-at/memctx"})
	if err != nil || hit != "t09" || !strings.Contains(rr.Contents[0].Text, `"queryAt": "2023-05-10T15:00:00.000Z"`) {
		t.Fatalf("context at 10 May: first hit in %q, memctx %v %s", hit, err, rr.Contents[0].Text)
	}
	for _, tool := range []string{"memory_search", "memory_context"} {
		failed, text := call(t, cs, tool, map[string]any{"threadId": "t08", "query": q, "at": "yesterday"}, nil)
		if !failed || !strings.Contains(text, `"at" is malformed`) || !strings.Contains(text, "(field at)") {
			t.Errorf("%s at \"yesterday\": failed=%v %q", tool, failed, text)
		}
		// An out-of-range topK names the tool's own argument, not recall's.
		failed, text = call(t, cs, tool, map[string]any{"threadId": "t08", "query": q, "topK": -1}, nil)
		if bound := map[string]string{"memory_search": "50", "memory_context": "1000"}[tool]; !failed || !strings.Contains(text, "(field topK)") || !strings.Contains(text, "must be within [0, "+bound+"], got -1") {
			t.Errorf("%s topK -1: failed=%v %q", tool, failed, text)
		}
		// An explicit zero time is refused as HTTP refuses it (TestZeroTime).
		failed, text = call(t, cs, tool, map[string]any{"threadId": "t08", "query": q, "at": "0001-01-01T00:00:00Z"}, nil)
		if !failed || !strings.Contains(text, "zero time") || !strings.Contains(text, "(field at)") {
			t.Errorf("%s at the zero time: failed=%v %q", tool, failed, text)
		}
	}
}
