package recall_test

import (
	"context"
	"fmt"
	"reflect"
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
	st, r := newSnapStore(t, 1200, 13)
	dir := t.TempDir()
	if err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	loaded, built := snapIndex(t, st, dir), snapIndex(t, st, "")
	queries := snapQueries(st, r, 45)
	for name, ix := range map[string]*recall.Index{"loaded": loaded, "built": built} {
		for i, q := range queries {
			q.Exclude = nil
			first, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
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
			q.Exclude = ex
			small, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			padded := map[string]bool{}
			for id, on := range ex {
				padded[id] = on
			}
			for k := range 33 {
				padded[fmt.Sprintf("absent-%d", k)] = true
			}
			q.Exclude = padded
			large, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(small, large) {
				t.Fatalf("%s, query %d: by ord %s\nby id  %s", name, i, hitList(small), hitList(large))
			}
			for _, h := range small.Hits {
				if ex[h.MessageID] {
					t.Fatalf("%s, query %d: excluded %s returned", name, i, h.MessageID)
				}
			}
		}
	}
}
