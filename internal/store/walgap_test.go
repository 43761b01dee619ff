package store_test

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

// rewrite replaces the image's -wal with damage(its bytes); it returns the
// log as damaged.
func (im walImage) rewrite(t *testing.T, damage func(b []byte) []byte) []byte {
	t.Helper()
	b, err := os.ReadFile(im.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	b = damage(b)
	if err := os.WriteFile(im.path+"-wal", b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// cut is b without its n bytes at off.
func cut(b []byte, off, n int) []byte { return slices.Delete(slices.Clone(b), off, off+n) }

// TestWALBytesMissing: bytes cut out of the middle of a crash image's log
// (not a whole number of frames) move every later frame off the frame
// grid. SQLite's recovery stops at the frame they went missing from, the
// scan checked frames on the grid only, and every later commit was
// dropped without a word. Open now finds the frames off the grid, keeps
// the log and repairs it when the bytes went missing from one frame's page
// that a later frame writes again (the frames after the gap chain from its
// header): every row is there. Otherwise it reports what was not applied.
func TestWALBytesMissing(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name     string
		big      bool
		cuts     func(im walImage, k int) [][2]int // offset, length; the later first
		repaired bool
	}{
		{"OneByte", false, func(im walImage, _ int) [][2]int { return [][2]int{{im.frameOff(3) + 24 + 1000, 1}} }, true},
		{"PageRewritten", false, func(im walImage, _ int) [][2]int { return [][2]int{{im.frameOff(3) + 24 + 1000, 100}} }, true},
		{"PageTail", false, func(im walImage, _ int) [][2]int { return [][2]int{{im.frameOff(4) - 7, 7}} }, true},
		{"TwoGaps", false, func(im walImage, _ int) [][2]int {
			return [][2]int{{im.frameOff(20) + 24 + 5, 300}, {im.frameOff(3) + 24 + 1000, 100}}
		}, true},
		{"PageWrittenOnce", true, func(im walImage, k int) [][2]int { return [][2]int{{im.frameOff(k) + 24 + 100, 100}} }, false},
		{"MoreThanAFrame", false, func(im walImage, _ int) [][2]int {
			return [][2]int{{im.frameOff(3) + 24 + 1000, im.frameOff(2) + 100 - 32}}
		}, false},
		{"FrameHeader", false, func(im walImage, _ int) [][2]int { return [][2]int{{im.frameOff(3) + 2, 4}} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), n, tc.big, false)
			k := onceWritten(t, im)
			damaged := im.rewrite(t, func(b []byte) []byte {
				for _, c := range tc.cuts(im, k) {
					b = cut(b, c[0], c[1])
				}
				return b
			})
			got, d := im.rows(t)
			if d == nil {
				t.Fatalf("rows=%d, WALDamageOf=nil: the commits after the missing bytes were dropped without a word", got)
			}
			if want := gapsOf(im, tc.cuts(im, k)); d.Repaired != tc.repaired || !slices.Equal(d.Scan.Gaps, want) {
				t.Fatalf("WALDamageOf=%+v scan %+v, want repaired=%v, gaps %v", d, d.Scan, tc.repaired, want)
			}
			if b, err := os.ReadFile(d.Kept); err != nil || !bytes.Equal(b, damaged) {
				t.Fatalf("the kept log differs from the damaged one (err %v)", err)
			}
			if tc.repaired {
				if got != n {
					t.Fatalf("rows=%d after the repair, want %d", got, n)
				}
				return
			}
			if got >= n || d.Scan.NotAppliedCommits == 0 || d.Scan.Exact {
				t.Fatalf("rows=%d, scan %+v; want fewer than %d rows, the commits not applied reported", got, d.Scan, n)
			}
		})
	}
}

// onceWritten is a frame of the image's log, from 5 on, whose page no
// later frame writes (0 when there is none).
func onceWritten(t *testing.T, im walImage) int {
	t.Helper()
	frames := im.frames(t)
	for i := 5; i < 20 && i < frames; i++ {
		again := false
		for j := i + 1; j <= frames; j++ {
			again = again || im.pgno(t, j) == im.pgno(t, i)
		}
		if !again {
			return i
		}
	}
	return 0
}

// gapsOf is where the frames after each of cuts (offset, length in the
// image's log, the later first) start in the log with them cut.
func gapsOf(im walImage, cuts [][2]int) []int64 {
	var gaps []int64
	removed := 0
	for _, c := range slices.Backward(cuts) {
		next := 1
		for im.frameOff(next) < c[0]+c[1] {
			next++
		}
		removed += c[1]
		gaps = append(gaps, int64(im.frameOff(next)-removed))
	}
	return gaps
}
