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
