package store

import "encoding/binary"

// A frame that fails its checksum: what its header was, and whether the
// page number it carries can be trusted. The frame checksum is weak
// where it matters here: it is a sum, so damage to a page byte changes
// the checksum as some damage to the header's two words would (for a log
// of little-endian sums, a page's most significant bytes as the header's
// last bytes: the low bytes of the page number and commit size).

// restoreHeader restores the first 8 header bytes (page number, commit
// size) of frame k, which fails its checksum against prev, when the damage
// was to them: it sets s.fixes[k], or s.alts[k] when that cannot be told
// from damage to its page.
//
// The running checksum after those two words is the page's, run
// backwards from the frame's stored checksums (unchecksum), and it
// determines them (walChecksumBytes: s1 += x0 + s2, s2 += x1 + s1): one
// pass over the page, one answer h. When the damage was elsewhere h is
// random; it is taken as the header only when it differs from the stored
// bytes in one or two bytes, or in one word with the other equal (odds
// below 2^-32 for random bytes), and fits the log (plausible).
//
// Damage to a run of at most 4 bytes of the page explains some such h as
// well (pageExplains: always for a little-endian log's last header bytes).
// Then h is taken only when the stored bytes do not fit the log (SQLite
// wrote no such header); when both fit, the frame stays damaged and h's
// page number is kept (alts): superseded requires both pages written
// again later.
func (s *WALScan) restoreHeader(b []byte, status []frameStatus, k int, prev [2]uint32, maxPage uint32) {
	f := frameAt(b, k, s.PageSize)
	t := unchecksum(s.order, stored(f), nil, f[walFrameHeaderSize:])
	var h [8]byte
	s.order.PutUint32(h[0:], t[0]-prev[0]-prev[1])
	s.order.PutUint32(h[4:], t[1]-prev[1]-t[0])
	diff := 0
	for i := range h {
		if h[i] != f[i] {
			diff++
		}
	}
	oneWord := string(h[:4]) == string(f[:4]) || string(h[4:]) == string(f[4:8])
	if diff == 0 || diff > 2 && !oneWord || !s.plausible(b, status, k, h[:], maxPage) {
		return
	}
	d := [2]uint32{s.order.Uint32(h[0:]) - s.order.Uint32(f[0:]), s.order.Uint32(h[4:]) - s.order.Uint32(f[4:])}
	if !s.pageExplains(f[walFrameHeaderSize:], d) || !s.plausible(b, status, k, f[:8], maxPage) {
		s.fixes[k] = h
		return
	}
	s.alts[k] = binary.BigEndian.Uint32(h[:4])
}

// pageExplains reports whether damage to a run of at most 4 bytes of page
// (a frame's page as read) changes the frame's checksum as adding d to
// its header's two words (in the log's byte order) does. The sums are
// linear in their inputs: a change (e0, e1) to the page's pair of words j
// (from 0) and a change d to the header's have the same effect when
// L e = T^(j+1) L d, where L(a, b) = (a, a+b) is a pair's entry into the
// sums and T(a, b) = (a+b, a+2b) a pair's step through them (T is
// invertible: determinant 1). So each pair is tried: the page it implies
// before the damage is page - e, and the bytes that differ must be one
// run of at most 4.
func (s *WALScan) pageExplains(page []byte, d [2]uint32) bool {
	v := [2]uint32{d[0], d[0] + d[1]}
	for j := 0; j+8 <= len(page); j += 8 {
		v = [2]uint32{v[0] + v[1], v[0] + 2*v[1]}
		e := [2]uint32{v[0], v[1] - v[0]}
		var was [8]byte
		s.order.PutUint32(was[0:], s.order.Uint32(page[j:])-e[0])
		s.order.PutUint32(was[4:], s.order.Uint32(page[j+4:])-e[1])
		first, last := -1, -1
		for i := range was {
			if was[i] != page[j+i] {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 && last-first < 4 {
			return true
		}
	}
	return false
}

// plausible reports whether the header bytes h (page number, commit
// size) fit frame k of the log: a page number from 1 to maxPage, a commit
// size 0 or from the page number to maxPage, and a page number strictly
// between those of the valid frames next to it in its transaction: SQLite
// writes a transaction's pages in ascending order (pcacheSortDirtyList; a
// page spilled mid-transaction breaks it, and its frame is reported
// rather than repaired).
func (s *WALScan) plausible(b []byte, status []frameStatus, k int, h []byte, maxPage uint32) bool {
	pgno, size := binary.BigEndian.Uint32(h), binary.BigEndian.Uint32(h[4:])
	if pgno == 0 || pgno > maxPage || size != 0 && (size < pgno || size > maxPage) {
		return false
	}
	if p, psize := s.frameHeader(b, k-1); s.trusted(status, k-1) && psize == 0 && p >= pgno {
		return false
	}
	n, _ := s.frameHeader(b, k+1)
	return size != 0 || !s.trusted(status, k+1) || n > pgno
}

// superseded reports whether frame k, which fails its checks and whose
// header restoreHeader did not restore, can be left out exactly: the page
// it writes is written again by a trusted frame after k through
// LastCommit, so the state after the last commit does not depend on it.
// That needs the page number it carries to be its own, which nothing
// checks once its checksum fails; it is trusted when its salts are the
// log's (one run of damage that reaches both the page number and the
// page reaches the salts between them) and it is plausible. When
// restoreHeader could not tell damage to the header from damage to the
// page (alts), the page it would have restored must be written again too.
// And the frame before it must be trusted, or the run of damage that
// reached that one reached k through its header (its salts): else frames
// are missing between them (bytes cut out, a multiple of the frame size:
// the frames after them stay on the grid) or two runs of damage hit, and
// nothing tells which.
//
// What it cannot tell: a page number damaged apart from the page (a
// second run of damage, the salts intact) to another plausible page that
// a later frame writes, with the checksum's answer implausible. Then the
// frame's own page keeps its state before the frame: not exact.
func (s *WALScan) superseded(b []byte, status []frameStatus, k int, maxPage uint32) bool {
	f := frameAt(b, k, s.PageSize)
	if !s.saltsMatch(f) || !s.plausible(b, status, k, f[:8], maxPage) || k > 1 && !s.trusted(status, k-1) {
		return false
	}
	if alt, ok := s.alts[k]; ok && !s.rewritten(b, status, k, alt) {
		return false
	}
	return s.rewritten(b, status, k, binary.BigEndian.Uint32(f))
}

// rewritten reports whether a trusted frame after k through LastCommit
// writes page pgno.
func (s *WALScan) rewritten(b []byte, status []frameStatus, k int, pgno uint32) bool {
	for j := k + 1; j <= s.LastCommit; j++ {
		if p, _ := s.frameHeader(b, j); s.trusted(status, j) && p == pgno {
			return true
		}
	}
	return false
}

// trusted reports whether frame i (from 1, through Frames) checks, or its
// header was restored.
func (s *WALScan) trusted(status []frameStatus, i int) bool {
	_, fixed := s.fixes[i]
	return i >= 1 && i <= s.Frames && (status[i] != frameBad || fixed)
}

// maxPage is the largest database size, in pages, that a valid commit
// frame of the log records.
func (s *WALScan) maxPage(b []byte, status []frameStatus) uint32 {
	var n uint32
	for i := 1; i <= s.Frames; i++ {
		if status[i] == frameValid {
			n = max(n, commitSize(frameAt(b, i, s.PageSize)))
		}
	}
	return n
}

// frameHeader is frame i's page number and commit size, as restored
// (fixes) or else as stored; zeros for a frame out of range.
func (s *WALScan) frameHeader(b []byte, i int) (pgno, size uint32) {
	if i < 1 || i > s.Frames {
		return 0, 0
	}
	h := frameAt(b, i, s.PageSize)[:8]
	if fixed, ok := s.fixes[i]; ok {
		h = fixed[:]
	}
	return binary.BigEndian.Uint32(h), binary.BigEndian.Uint32(h[4:])
}
