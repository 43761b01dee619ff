package recall_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestExcludeByOrdAfterWrites: the exclusion by ords answers what the ids'
// map answers after the loaded shard changed: excluded messages replaced
// (same id, new content), removed and added again (a new entry), and new
// messages added, on a shard loaded from its snapshot and one built.
func TestExcludeByOrdAfterWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of 1,200 messages")
	}
	ctx := context.Background()
	st, r, shards := exclusionShards(t, 1200, 13)
	queries := snapQueries(st, r, 45)
	for name, ix := range shards {
		for i, q := range queries {
			first := searchExcluding(t, ix, q, nil)
			if len(first.Hits) == 0 {
				continue
			}
			// Rewrite the best hits: the first replaced, the second removed
			// and added again, the third removed.
			var ex = map[string]bool{}
			docs := st.allDocs()
			byID := map[string]recall.Doc{}
			for _, d := range docs {
				byID[d.ID] = d
			}
			for k, h := range first.Hits[:min(3, len(first.Hits))] {
				ex[h.MessageID] = true
				d, ok := byID[h.MessageID]
				if !ok {
					continue
				}
				var err error
				switch k {
				case 0:
					d.Content += fmt.Sprintf(" rewritten %d", i)
					err = ix.Add(ctx, []recall.Doc{d}, [][]float32{recall.HashVector(d.Text())})
				case 1:
					if err = ix.Remove(ctx, []string{d.ID}, st.res); err == nil {
						err = ix.Add(ctx, []recall.Doc{d}, [][]float32{recall.HashVector(d.Text())})
					}
				case 2:
					err = ix.Remove(ctx, []string{d.ID}, st.res)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			checkExclusion(t, ix, q, ex, fmt.Sprintf("%s, query %d", name, i))
		}
	}
}
