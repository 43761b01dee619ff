package store

import (
	"bytes"
	"encoding/binary"
)

// Bytes missing from the middle of a log (a copy or a file system that
// dropped them) move every later frame off the frame grid, where SQLite's
// recovery reads frames: it stops at the frame they went missing from,
// and each frame on the grid after it is the tail of one frame and the
// head of the next, which fails too. The scan looks for the frames off
// the grid where a frame fails and so does the one after it (a sound log's
// failing frames are followed by an older generation's, which chain among
// themselves, or by nothing: it pays no search).

// maxGaps bounds the gaps one scan fills: each costs a copy of the log
// and a scan of the copy.
const maxGaps = 4

// walGap is one gap filled: n zero bytes inserted at offset at of the log
// with the earlier gaps filled.
type walGap struct{ at, n int }

// offGrid returns the offset of the first run of frames that starts off
// the frame grid near a frame that fails and is followed by one that fails
// too (or by the log's end): frames with the log's salts that check by
// their own chained checksums (runAt). Bytes missing from frame i put the
// next frame that survives within a frame's size of where they went
// missing, so the search spans frames i and i+1: two frames' bytes.
func (s *WALScan) offGrid(b []byte, status []frameStatus) (int, bool) {
	fsize := walFrameHeaderSize + s.PageSize
	for i := 1; i <= s.Frames; i++ {
		if status[i] != frameBad || i < s.Frames && status[i+1] != frameBad {
			continue
		}
		lo := walHeaderSize + (i-1)*fsize
		hi := min(len(b), lo+2*fsize+16) // the salts of a frame starting before frame i+2
		for at := lo + 9; at < hi; {     // the salts of a frame starting after frame i's start
			j := bytes.Index(b[at:hi], s.salts[:])
			if j < 0 {
				break
			}
			p := at + j - 8
			at += j + 1
			if (p-walHeaderSize)%fsize != 0 && s.runAt(b, p) {
				return p, true
			}
		}
	}
	return 0, false
}

// runAt reports whether the frame at offset p (off the grid, its salts the
// log's) starts a run of frames that check by their own chained
// checksums: it carries a page number, and it chains from the frame on
// the grid that p falls in (rechains) or the frame after it carries the
// salts and a page number and chains from it.
func (s *WALScan) runAt(b []byte, p int) bool {
	fsize := walFrameHeaderSize + s.PageSize
	if p+fsize > len(b) || binary.BigEndian.Uint32(b[p:]) == 0 {
		return false
	}
	if s.rechains(b, p) {
		return true
	}
	if p+2*fsize > len(b) {
		return false
	}
	a, next := b[p:p+fsize], b[p+fsize:p+2*fsize]
	return s.saltsMatch(next) && binary.BigEndian.Uint32(next) != 0 &&
		cksum(s.order, stored(a), next[:8], next[walFrameHeaderSize:]) == stored(next)
}

// rechains reports whether the frame at offset p (off the grid) chains
// from the stored checksums of the frame on the grid that p falls in,
// whose 24-byte header lies wholly before p and carries the log's salts:
// then the bytes went missing from that frame's page alone, and the
// frames after it are the log's next ones.
func (s *WALScan) rechains(b []byte, p int) bool {
	fsize := walFrameHeaderSize + s.PageSize
	g := walHeaderSize + (p-walHeaderSize)/fsize*fsize
	if p < g+walFrameHeaderSize || p+fsize > len(b) {
		return false
	}
	h, a := b[g:g+walFrameHeaderSize], b[p:p+fsize]
	return s.saltsMatch(h) && cksum(s.order, stored(h), a[:8], a[walFrameHeaderSize:]) == stored(a)
}

// realigned scans b with the gap at p filled: zero bytes inserted up to
// the next frame boundary, so that the frames from p on are on the grid.
// The frame the bytes went missing from fails then (its page is short of
// them); the scan is Exact only if the frames after the gap re-chain from
// it (rechains): otherwise whole frames may have gone missing with the
// bytes, which no scan can see.
func (s *WALScan) realigned(b []byte, p, depth int) *WALScan {
	fsize := walFrameHeaderSize + s.PageSize
	n := fsize - (p-walHeaderSize)%fsize
	filled := make([]byte, 0, len(b)+n)
	filled = append(append(append(filled, b[:p]...), make([]byte, n)...), b[p:]...)
	t := scanWAL(filled, depth+1)
	t.Size = int64(len(b))
	for i := range t.Gaps {
		t.Gaps[i] -= int64(n)
	}
	t.Gaps = append([]int64{int64(p)}, t.Gaps...)
	t.gaps = append([]walGap{{p, n}}, t.gaps...)
	t.Exact = t.Exact && s.rechains(b, p)
	return t
}

// aligned is b with the scan's gaps filled (a copy), or b when there are
// none: the log whose frames the scan numbers.
func (s *WALScan) aligned(b []byte) []byte {
	for _, g := range s.gaps {
		filled := make([]byte, 0, len(b)+g.n)
		b = append(append(append(filled, b[:g.at]...), make([]byte, g.n)...), b[g.at:]...)
	}
	return b
}
