package recall_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotLazyEntries: a shard read from a snapshot makes its entries
// on demand (snapshot_lazy.go). A search without a filter makes a few of
// them; such searches, several at once, answer as the build does; then the
// searches with filters and thread scope (which make all), and after an
// Add (a write makes all first) and a Remove, every search still answers
// as the build does. Run under -race, the concurrent searches check that
// making an entry under the read lock races with no reader.
func TestSnapshotLazyEntries(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { recall.SetMakeBehindForTest(true) })
	recall.SetMakeBehindForTest(false)
	st, r := newSnapStore(t, 3000, 41) // above exactRows: the vector channel ranks candidates
	dir, _ := savedSnapshot(t, st)
	ix := snapIndex(t, st, dir)
	fresh := snapIndex(t, st, "")
	var plain, rest []recall.Query
	for i, q := range snapQueries(st, r, 48) {
		if i%4 == 0 {
			plain = append(plain, q)
		} else {
			rest = append(rest, q)
		}
	}
	same := func(stage string, qs []recall.Query) {
		t.Helper()
		want := make([]string, len(qs))
		for i, q := range qs {
			res, err := fresh.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = hitList(res)
		}
		got := make([]string, len(qs))
		errs := make([]error, len(qs))
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < len(qs); i += 4 {
					res, err := ix.Search(ctx, qs[i])
					if errs[i] = err; err == nil {
						got[i] = hitList(res)
					}
				}
			})
		}
		wg.Wait()
		for i := range qs {
			if errs[i] != nil {
				t.Fatalf("%s, query %d: %v", stage, i, errs[i])
			}
			if got[i] != want[i] {
				t.Fatalf("%s, query %d (%s): the snapshot's shard answers\n%s\nthe build\n%s", stage, i, qs[i].Options.Mode, got[i], want[i])
			}
		}
	}
	loads := recall.SnapshotLoadsForTest()
	same("first", plain[:1])
	if recall.SnapshotLoadsForTest() != loads+1 {
		t.Fatal("the shard was not read from its snapshot")
	}
	// A search reads its candidates' entries and their neighbours': a
	// few hundred (628 of 100,000 at the bench's first LoadContext).
	made, total := ix.MadeEntriesForTest(st.res)
	if total != len(st.allDocs()) || made == 0 || made > total/3 {
		t.Fatalf("%d of %d entries made by a search without a filter; want some, at most a third", made, total)
	}
	same("plain", plain)
	same("filters and threads", rest)
	if made, total := ix.MadeEntriesForTest(st.res); made != total {
		t.Fatalf("%d of %d entries made after the filtered searches, want all", made, total)
	}

	// A write after the load: a fresh shard from the same snapshot, so
	// that Add and Remove meet unmade entries.
	ix = snapIndex(t, st, dir)
	d := st.allDocs()[7]
	add := recall.Doc{ID: "late-1", ThreadID: d.ThreadID, ResourceID: st.res, Seq: 1 << 20, Role: "user", Content: "a late question about the lighthouse keeper"}
	if _, err := ix.Search(ctx, plain[0]); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*recall.Index{ix, fresh} {
		if err := x.Add(ctx, []recall.Doc{add}, [][]float32{recall.HashVector(add.Text())}); err != nil {
			t.Fatal(err)
		}
		if err := x.Remove(ctx, []string{st.allDocs()[11].ID}, st.res); err != nil {
			t.Fatal(err)
		}
	}
	same("after a write", append(plain, rest...))

	// Made behind: once the vector part's check passed, every entry is.
	recall.SetMakeBehindForTest(true)
	dir, _ = savedSnapshot(t, st) // the write above may have saved one with it
	ix = snapIndex(t, st, dir)
	fresh = snapIndex(t, st, "")
	same("first, made behind", plain[:1])
	ix.WaitVerifiedForTest()
	if made, total := ix.MadeEntriesForTest(st.res); made != total {
		t.Fatalf("%d of %d entries made after the check, want all", made, total)
	}
	same("made behind", append(plain, rest...))
}
