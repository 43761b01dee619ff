package main

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

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

// TestPrintWALDamageBeforeOnly: an open that kept only a copy of
// mnemo.db (damage in the log's last transaction, no valid -shm, mnemo.db
// holding pages newer than the log's valid prefix) prints the copy's
// note alone: no warning that "0 commits (0 frames) … were NOT applied".
func TestPrintWALDamageBeforeOnly(t *testing.T) {
	var w strings.Builder
	printWALDamage(&w, &engine.WALDamage{Log: "/d/mnemo.db-wal", AppliedThroughFrame: 296, Before: "/d/mnemo.db.before-wal-X"})
	if out := w.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, "kept as /d/mnemo.db.before-wal-X") || strings.Contains(out, "NOT applied") {
		t.Fatalf("printWALDamage: %q, want the before-wal note alone", out)
	}
}
