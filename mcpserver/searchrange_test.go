package mcpserver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestSearchNeighbours: memory_search gives each hit with the turn before
// and after it whatever arguments it gets, as its description says; before,
// a search with neither topK nor threadId (the common call) gave the hits
// alone.
func TestSearchNeighbours(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	const n = 30
	var msgs []map[string]any
	for i := range n {
		msgs = append(msgs, map[string]any{"role": []string{"user", "assistant"}[i%2], "content": fmt.Sprintf("note %d: the garden plot number %d needs compost", i, i)})
	}
	if failed, text := call(t, cs, mcpserver.ToolAppend, map[string]any{"threadId": "t1", "messages": msgs}, nil); failed {
		t.Fatalf("append: %s", text)
	}
	if err := e.SyncIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]map[string]any{
		"QueryOnly":  {"query": "garden plot compost"},
		"TopK":       {"query": "garden plot compost", "topK": 3},
		"ThreadID":   {"query": "garden plot compost", "threadId": "t1"},
		"ResourceID": {"query": "garden plot compost", "resourceId": "res-alice"},
	} {
		t.Run(name, func(t *testing.T) {
			var out mcpserver.SearchOutput
			if failed, text := call(t, cs, mcpserver.ToolSearch, args, &out); failed {
				t.Fatalf("search: %s", text)
			}
			got := map[int64]bool{}
			for _, h := range out.Hits {
				got[h.Seq] = true
			}
			for _, h := range out.Hits {
				if h.Reason != "hit" {
					continue
				}
				for _, s := range []int64{h.Seq - 1, h.Seq + 1} {
					if s >= 1 && s <= n && !got[s] {
						t.Fatalf("hit seq %d without its neighbour seq %d (%d results)", h.Seq, s, len(out.Hits))
					}
				}
			}
		})
	}
}
