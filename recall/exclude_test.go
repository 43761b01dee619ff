package recall_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// TestExcludeExact checks that excluding messages (LoadContext's recent
// window) gives exactly the top K of the remaining messages, in lexical and
// vector mode, even when the excluded ones are the best matches: each
// channel asks for pool+|excluded| candidates instead of widening. The
// lexical channel ranks by bleve's BM25 here, the order its candidate pool
// is taken in (textbook re-scoring reorders within the pool).
func TestExcludeExact(t *testing.T) {
	ctx := context.Background()
	ix, c := synthIndex(t, synth.Config{Messages: 3000, Resources: 2}, recall.Tuning{CandidatePool: 8, BleveScores: true})
	ids := func(hs []recall.Hit) []string {
		recall.SortByRank(hs)
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = h.MessageID
		}
		return out
	}
	// scores are compared instead of ids: messages with equal scores may
	// come in either order at the top-K boundary.
	scores := func(hs []recall.Hit) []float32 {
		recall.SortByRank(hs)
		out := make([]float32, len(hs))
		for i, h := range hs {
			out[i] = float32(h.Score)
		}
		return out
	}
	checked := 0
	for i := range 30 {
		q := c.Query(i, 0)
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector} {
			for _, scope := range []recall.Scope{recall.ScopeResource, recall.ScopeThread} {
				const k = 5
				base := recall.Query{Text: q.Text, ResourceID: q.ResourceID, ThreadID: q.ThreadID, Options: recall.Options{TopK: 2 * k, Mode: mode, Scope: scope}}
				all, err := ix.Search(ctx, base)
				if err != nil {
					t.Fatal(err)
				}
				full, fullScores := ids(all.Hits), scores(all.Hits)
				if len(full) < 2*k {
					continue
				}
				// Exclude the best k (more than the pool can lose without
				// the slack) and a message of another resource.
				ex := map[string]bool{c.Thread(c.ResourceThreads(1 - i%2)[0]).Messages[0].ID: true}
				for _, id := range full[:k] {
					ex[id] = true
				}
				q2 := base
				q2.Options.TopK, q2.Exclude = k, ex
				got, err := ix.Search(ctx, q2)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range got.Hits {
					if ex[h.MessageID] {
						t.Fatalf("query %q: excluded %s returned", q.Text, h.MessageID)
					}
				}
				if want := fullScores[k:]; !slices.Equal(scores(got.Hits), want) {
					t.Fatalf("query %q %s/%s excluding the top %d: got %v %v, want %v %v", q.Text, mode, scope, k, ids(got.Hits), scores(got.Hits), full[k:], want)
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d cases checked", checked)
	}
}
