package engine

import (
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
	fill := func(n int) residue {
		var r residue
		for range n {
			r.add(long)
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
