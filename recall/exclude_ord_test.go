package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	st, r, shards := exclusionShards(t, 2600, 11)
	docs := st.allDocs()
	for i, q := range snapQueries(st, r, 90) {
		for name, ix := range shards {
			first := searchExcluding(t, ix, q, nil)
			ex := map[string]bool{"no-such-message": true}
			for k, h := range first.Hits {
				if k < 1+i%8 {
					ex[h.MessageID] = true
				}
			}
			for range i % 5 {
				ex[docs[r.IntN(len(docs))].ID] = i%2 == 0
			}
			checkExclusion(t, ix, q, ex, fmt.Sprintf("%s, query %d (%s %q, %d excluded)", name, i, q.Options.Mode, q.Text, len(ex)))
		}
	}
}

// exclusionShards builds the corpus of n messages (newSnapStore, seed)
// and returns it, its random source and two indexes of it by name:
// "loaded" from its snapshot and "built" from its source.
func exclusionShards(t *testing.T, n int, seed uint64) (*snapStore, *rand.Rand, map[string]*recall.Index) {
	t.Helper()
	st, r := newSnapStore(t, n, seed)
	dir := t.TempDir()
	if err := snapIndex(t, st, dir).SaveSnapshotForTest(context.Background(), st.res); err != nil {
		t.Fatal(err)
	}
	loaded, built := snapIndex(t, st, dir), snapIndex(t, st, "")
	return st, r, map[string]*recall.Index{"loaded": loaded, "built": built}
}

// searchExcluding returns ix's answer to q with the exclusion ex (nil:
// none), or fails the test.
func searchExcluding(t *testing.T, ix *recall.Index, q recall.Query, ex map[string]bool) *recall.Result {
	t.Helper()
	q.Exclude = ex
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkExclusion fails the test (naming the case what) unless ix answers
// q with the exclusion ex (at most 32 ids: checked by ords) as it answers
// with ex padded past 32 by ids of no message (checked in the ids' map),
// and returns no id ex excludes.
func checkExclusion(t *testing.T, ix *recall.Index, q recall.Query, ex map[string]bool, what string) {
	t.Helper()
	small := searchExcluding(t, ix, q, ex)
	padded := map[string]bool{}
	for id, on := range ex {
		padded[id] = on
	}
	for k := range 33 {
		padded[fmt.Sprintf("absent-%d", k)] = true
	}
	large := searchExcluding(t, ix, q, padded)
	if !reflect.DeepEqual(small, large) {
		t.Fatalf("%s: by ord %s\nby id  %s", what, hitList(small), hitList(large))
	}
	for _, h := range small.Hits {
		if ex[h.MessageID] {
			t.Fatalf("%s: excluded %s returned", what, h.MessageID)
		}
	}
}
