package recall_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestExcludeByOrd: an exclusion of up to 32 ids, checked by the excluded
// messages' ords (excludedOrds), answers what the ids' map answers, which
// a larger exclusion still uses: each search is run with its exclusion and
// with the same exclusion padded past 32 by ids of no message (which
// exclude nothing), over a shard built from its source and one loaded from
// its snapshot, in every mode, with filters and thread scope, the
// exclusion holding ids of the query's best hits, ids mapped to false and
// ids of no message; and no excluded id is ever returned.
func TestExcludeByOrd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of 2,600 messages")
	}
	ctx := context.Background()
	st, r := newSnapStore(t, 2600, 11)
	dir := t.TempDir()
	if err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res); err != nil {
		t.Fatal(err)
	}
	loaded, built := snapIndex(t, st, dir), snapIndex(t, st, "")
	docs := st.allDocs()
	for i, q := range snapQueries(st, r, 90) {
		for name, ix := range map[string]*recall.Index{"loaded": loaded, "built": built} {
			q := q
			q.Exclude = nil
			first, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			ex := map[string]bool{"no-such-message": true}
			for k, h := range first.Hits {
				if k < 1+i%8 {
					ex[h.MessageID] = true
				}
			}
			for range i % 5 {
				ex[docs[r.IntN(len(docs))].ID] = i%2 == 0
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
				t.Fatalf("%s, query %d (%s %q, %d excluded): by ord %s\nby id  %s", name, i, q.Options.Mode, q.Text, len(ex), hitList(small), hitList(large))
			}
			for _, h := range small.Hits {
				if ex[h.MessageID] {
					t.Fatalf("%s, query %d: excluded %s returned", name, i, h.MessageID)
				}
			}
		}
	}
}
