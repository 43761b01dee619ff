package main

import "testing"

// TestFrameList: the frames a WAL damage line names; a log whose header
// alone was damaged (rebuilt from its frames) said "(frames )".
func TestFrameList(t *testing.T) {
	for _, tc := range []struct {
		ns   []int
		want string
	}{
		{nil, "its header"},
		{[]int{7}, "frame 7"},
		{[]int{7, 9, 12}, "frames 7, 9, 12"},
		{[]int{1, 2, 3, 4, 5, 6, 7}, "frames 1, 2, 3, 4, 5, and 2 more"},
	} {
		if got := frameList(tc.ns); got != tc.want {
			t.Errorf("frameList(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}

// TestMissingList: where bytes were missing from a damaged log, said after
// its damaged frames (nothing said it: the frames numbered as if the gap
// were filled looked like any damage).
func TestMissingList(t *testing.T) {
	for _, tc := range []struct {
		offs []int64
		want string
	}{
		{nil, ""},
		{[]int64{4096}, "; bytes missing at offset 4096"},
		{[]int64{4096, 81920}, "; bytes missing at offsets 4096, 81920"},
	} {
		if got := missingList(tc.offs); got != tc.want {
			t.Errorf("missingList(%v) = %q, want %q", tc.offs, got, tc.want)
		}
	}
}
