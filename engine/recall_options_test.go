package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestLoadContextRecallDefaults: one rule for TopK everywhere (issue 13).
// Nil recall options turn recall off; zero fields mean their defaults,
// TopK 0 included (recall.DefaultTopK, as in Search); the memctx record
// names the resolved options that ran.
func TestLoadContextRecallDefaults(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		var old []engine.Message
		for i := range 9 {
			old = append(old, engine.Message{Role: "user", Content: fmt.Sprintf("the kiwi orchard note number %d", i)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "old", ResourceID: "r", Messages: old}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "cur", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "what about the kiwi orchard?"}}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		hits := func(c *engine.Context) int {
			n := 0
			for _, r := range c.MemCtx.Recalled {
				if r.Reason == journal.ReasonHit {
					n++
				}
			}
			return n
		}

		off, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur"})
		if err != nil {
			t.Fatal(err)
		}
		if hits(off) != 0 || off.MemCtx.Retrieval.Lexical != "off" || off.MemCtx.Retrieval.Vector != "off" || off.MemCtx.Options.TopK != 0 {
			t.Fatalf("nil recall options: %d hits, retrieval %+v, options %+v; want recall off", hits(off), off.MemCtx.Retrieval, off.MemCtx.Options)
		}

		zero, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur", Recall: &recall.Options{}})
		if err != nil {
			t.Fatal(err)
		}
		o := zero.MemCtx.Options
		if hits(zero) != recall.DefaultTopK || o.TopK != recall.DefaultTopK || o.Scope != string(recall.ScopeResource) || o.Mode != string(recall.ModeHybrid) {
			t.Fatalf("TopK 0: %d hits, options %+v; want %d hits, topK %d, scope resource, mode hybrid", hits(zero), o, recall.DefaultTopK, recall.DefaultTopK)
		}
		if zero.MemCtx.Retrieval.Lexical != "ok" || zero.MemCtx.Retrieval.Vector != "ok" {
			t.Fatalf("TopK 0: retrieval %+v", zero.MemCtx.Retrieval)
		}
		explicit, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur", Recall: &recall.Options{TopK: recall.DefaultTopK}})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(refs(explicit.MemCtx.Recalled)) != fmt.Sprint(refs(zero.MemCtx.Recalled)) {
			t.Fatalf("TopK 0 recalled %v, TopK %d recalled %v", refs(zero.MemCtx.Recalled), recall.DefaultTopK, refs(explicit.MemCtx.Recalled))
		}
		// The search API follows the same rule.
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "kiwi orchard"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != recall.DefaultTopK {
			t.Fatalf("Search TopK 0: %d hits, want %d", len(res.Hits), recall.DefaultTopK)
		}
	})
}

func refs(rs []journal.Ref) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s:%d:%s", r.ThreadID, r.Seq, r.Reason)
	}
	return out
}
