package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestResidueBounded: a residue keeps a copy of each text's first
// residuePrefix bytes, not the text, and at most residueMaxPatterns of
// them, however many texts are added or merged; past the bound it is over
// (the purge vacuums). Before, an erasure kept every erased text whole
// until its purge finished (a resource of 1M messages: all of them).
func TestResidueBounded(t *testing.T) {
	long := strings.Repeat("x", 4096)
	next := 0 // distinct texts: a repeated prefix is kept once (TestResidueDedupes)
	fill := func(n int) residue {
		var r residue
		for range n {
			r.add(fmt.Sprintf("%08d", next) + long)
			next++
		}
		return r
	}
	for _, tc := range []struct {
		name      string
		r         residue
		wantPats  int
		wantTexts int
		wantOver  bool
	}{
		{"Short", func() residue { var r residue; r.add("tomato", "a b"); return r }(), 0, 0, false},
		{"One", fill(1), 1, 1, false},
		{"AtBound", fill(residueMaxPatterns), residueMaxPatterns, residueMaxPatterns, false},
		{"PastBound", fill(residueMaxPatterns + 1), 0, residueMaxPatterns + 1, true},
		{"MergeAtBound", func() residue { r := fill(residueMaxPatterns / 2); r.merge(fill(residueMaxPatterns / 2)); return r }(), residueMaxPatterns, residueMaxPatterns, false},
		{"MergePastBound", func() residue { r := fill(residueMaxPatterns / 2); r.merge(fill(residueMaxPatterns/2 + 1)); return r }(), 0, residueMaxPatterns + 1, true},
		{"MergeOver", func() residue { r := fill(1); r.merge(fill(residueMaxPatterns + 1)); r.merge(fill(1)); return r }(), 0, residueMaxPatterns + 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := len(tc.r.pats), tc.wantPats; got != want {
				t.Errorf("pats=%d, want %d", got, want)
			}
			if got, want := tc.r.texts, tc.wantTexts; got != want {
				t.Errorf("texts=%d, want %d", got, want)
			}
			if got, want := tc.r.over, tc.wantOver; got != want {
				t.Errorf("over=%v, want %v", got, want)
			}
			for i, p := range tc.r.pats {
				if len(p) != residuePrefix || cap(p) > 2*residuePrefix {
					t.Fatalf("pats[%d]: len %d cap %d, want a copy of the first %d bytes", i, len(p), cap(p), residuePrefix)
				}
			}
		})
	}
}

// TestPagesHolding: the residue check's scan names each page holding a
// pattern once, in file order, whichever of the two matchers runs (up to
// fewPatterns patterns, and beyond); it skips a page mayHold turns down;
// it says when a match straddles two pages, within a chunk or across two
// chunks (1 MiB of pages); and a short pattern in the last bytes of a
// chunk is no straddle.
func TestPagesHolding(t *testing.T) {
	const ps = 512
	chunk := (1 << 20) / ps // the first page of the second chunk is chunk+1
	const a, b = "the first planted pattern", "short pattern"
	put := func(f []byte, pg, at int, s string) { copy(f[(pg-1)*ps+at:], s) }
	for _, tc := range []struct {
		name      string
		plant     func(f []byte)
		skip      int64 // the page mayHold turns down
		want      []int64
		straddles bool
	}{
		{"InPages", func(f []byte) { put(f, 9, 10, a); put(f, 3, 0, b); put(f, chunk+2, 100, a); put(f, 9, 300, b) }, 0, []int64{3, 9, int64(chunk) + 2}, false},
		{"Skipped", func(f []byte) { put(f, 3, 0, a); put(f, 4, 0, a) }, 3, []int64{4}, false},
		{"StraddlesInChunk", func(f []byte) { put(f, 5, ps-4, a) }, 0, nil, true},
		{"StraddlesChunks", func(f []byte) { put(f, chunk, ps-4, a) }, 0, nil, true},
		{"ShortAtChunkEnd", func(f []byte) { put(f, chunk, ps-len(b), b) }, 0, []int64{int64(chunk)}, false},
	} {
		for _, many := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/many=%v", tc.name, many), func(t *testing.T) {
				f := make([]byte, 3*chunk*ps/2)
				tc.plant(f)
				path := filepath.Join(t.TempDir(), "db")
				if err := os.WriteFile(path, f, 0o600); err != nil {
					t.Fatal(err)
				}
				pats := [][]byte{[]byte(a), []byte(b)}
				for i := 0; many && i < 2*fewPatterns; i++ {
					pats = append(pats, fmt.Appendf(nil, "a pattern no page holds %d", i))
				}
				mayHold := func(pg int64, page []byte) bool { return pg != tc.skip }
				got, straddles, err := pagesHolding(context.Background(), path, ps, pats, mayHold)
				if err != nil {
					t.Fatal(err)
				}
				if straddles != tc.straddles || (!straddles && !slices.Equal(got, tc.want)) {
					t.Fatalf("pagesHolding = %v, straddles %v; want %v, %v", got, straddles, tc.want, tc.straddles)
				}
			})
		}
	}
}

// TestResidueDedupes: a prefix added again (the same metadata on every
// message of a thread, the same arguments in many calls), or merged from
// another erasure's residue, is searched for once and counts once against
// residueMaxPatterns: an erasure of 65,536 messages sharing one metadata
// text searched 65,536 copies of it, and one more distinct text made the
// purge vacuum instead of searching.
func TestResidueDedupes(t *testing.T) {
	var r residue
	r.add(`{"source":"slack export"}`, `{"source":"slack export"}`, "a text of the user's")
	r.addIDs("thread-0123456789", "thread-0123456789")
	if got, want := len(r.all(nil)), 3; got != want {
		t.Fatalf("%d patterns, want %d (each once)", got, want)
	}
	var q residue
	q.add(`{"source":"slack export"}`, "another text of the user's")
	r.merge(q)
	if got, want := len(r.all(nil)), 4; got != want || r.over {
		t.Fatalf("%d patterns after merge (over %v), want %d", got, r.over, want)
	}
	if got, want := r.texts, 7; got != want {
		t.Fatalf("texts=%d, want %d (every text added counts)", got, want)
	}

	var big residue
	for i := range residueMaxPatterns {
		big.add(fmt.Sprintf("distinct text %08d", i))
	}
	big.add("distinct text 00000000", "short") // a repeat, and a text too short to search
	if big.over || len(big.all(nil)) != residueMaxPatterns {
		t.Fatalf("over=%v with %d patterns after a repeat, want %d searched", big.over, len(big.all(nil)), residueMaxPatterns)
	}
	big.add("one more distinct text")
	if !big.over || len(big.all(nil)) != 0 {
		t.Fatalf("over=%v with %d patterns past the bound, want over and none", big.over, len(big.all(nil)))
	}
}
