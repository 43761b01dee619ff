package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// The write-ahead log's format (https://www.sqlite.org/fileformat2.html#walformat,
// and SQLite's wal.c: walIndexRecover, walDecodeFrame, walChecksumBytes).
// No maintained Go package reads a WAL past its first bad frame:
// litestream's WALReader stops there as SQLite does, and it would bring
// litestream's cloud clients along. So the scan is here, with the store
// that owns the file.
const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
	walMagicLE         = 0x377f0682 // checksums over little-endian words
	walMagicBE         = 0x377f0683 // checksums over big-endian words
	walVersion         = 3007000
)

// WALScan is what ScanWAL found in a write-ahead log: how far SQLite's own
// recovery applies it, and whether valid commits lie past a damaged frame,
// which that recovery drops without a word.
//
// Frames are numbered from 1, as in SQLite. A frame is valid when it
// carries the header's salts, a page number other than 0 and the running
// checksum: the checksum of its first 8 header bytes and its page, seeded
// with the previous frame's stored checksums (the header's for frame 1).
type WALScan struct {
	// Size is the log's size in bytes.
	Size int64
	// PageSize is the page size in bytes (the header's, or for a damaged
	// header the one with which frame 1 checks, or else the first two
	// frames that chain); 0 when the log holds no frame that checks.
	PageSize int
	// Frames counts the whole frames in the log (a torn last one aside).
	Frames int
	// HeaderDamaged is set when the log's header fails its checksum but
	// its frames check under a header rebuilt from them: SQLite's recovery
	// ignores the whole log then.
	HeaderDamaged bool
	// Applied is the last frame SQLite's recovery applies: the last commit
	// frame before the first frame that fails (0: none).
	Applied int
	// LastCommit is the last valid commit frame of the log's current
	// generation (0: none): what the log holds when nothing is damaged.
	LastCommit int
	// Damaged lists the frames through LastCommit that fail their checks.
	Damaged []int
	// NotApplied counts the valid frames after Applied through LastCommit,
	// and NotAppliedCommits the commits among them (a damaged frame that
	// was a commit is not counted: its flag cannot be trusted).
	NotApplied, NotAppliedCommits int
	// Exact is set when the log can be repaired so that SQLite applies
	// every commit through LastCommit with the database state those
	// commits wrote (Repair): every damaged frame is either intact apart
	// from header bytes the checks restore (its salts, its checksums, its
	// page number or its commit size: restoreHeader), or its page is
	// written again by a valid frame after it and at or before LastCommit,
	// so the state after the last commit does not depend on it (and the
	// page number it carries can be trusted: superseded); and bytes missing
	// from the log (Gaps) went missing from one frame's page, whose header
	// the frames after them chain from.
	Exact bool
	// Gaps lists the offsets, in the log as read, where bytes are missing
	// from it (cut out of its middle): at each, after a frame that fails,
	// frames that check by their own chained checksums start off the frame
	// grid, so SQLite's recovery, which reads frames on the grid only,
	// never reaches them. Frames after a gap are numbered (Frames, Applied,
	// LastCommit, Damaged) as if zero bytes filled it up to the next frame
	// boundary: the frame the bytes went missing from is damaged. Empty
	// for a log that lost no bytes; only a log with a frame that fails is
	// searched (a sound log costs no search).
	Gaps []int64

	order binary.ByteOrder // of the checksummed words
	seed  [2]uint32        // frame 1's running checksum seed (the header's)
	salts [8]byte
	fixes map[int][8]byte // frame → its first 8 header bytes, restored
	alts  map[int]uint32  // frame → the page number it may have instead (restoreHeader)
	gaps  []walGap        // the zero bytes that fill Gaps, in order
}

// Lost reports whether the log holds commits that SQLite's recovery would
// not apply (Applied < LastCommit): a damaged frame before them.
func (s *WALScan) Lost() bool { return s.LastCommit > s.Applied }

// ScanWAL reads the write-ahead log b (a -wal file's whole contents). It
// never fails: bytes that are not a log, or a log without frames, scan as
// one with no frames; a torn tail and an older generation's frames (other
// salts) after the current ones are how SQLite leaves a log, not damage.
func ScanWAL(b []byte) *WALScan { return scanWAL(b, 0) }

// scanWAL is ScanWAL; depth counts the gaps filled already (realigned).
func scanWAL(b []byte, depth int) *WALScan {
	s := &WALScan{Size: int64(len(b))}
	if !s.readHeader(b) {
		return s
	}
	fsize := walFrameHeaderSize + s.PageSize
	s.Frames = (len(b) - walHeaderSize) / fsize
	status := make([]frameStatus, s.Frames+1)
	seeds := make([][2]uint32, s.Frames+1) // each frame's running checksum seed
	prev := s.seed
	for i := 1; i <= s.Frames; i++ {
		f := frameAt(b, i, s.PageSize)
		seeds[i] = prev
		st, sum := s.checkFrame(f, prev)
		status[i] = st
		prev = stored(f)
		if st == frameBad && i < s.Frames {
			// Its stored checksums may be what was damaged: then its
			// contents are intact and the next frame chains from the sums
			// they compute to.
			if next := frameAt(b, i+1, s.PageSize); s.saltsMatch(next) && cksum(s.order, sum, next[:8], next[walFrameHeaderSize:]) == stored(next) {
				status[i], prev = frameFixed, sum
			}
		}
	}
	if depth < maxGaps {
		if p, ok := s.offGrid(b, status); ok {
			if t := s.realigned(b, p, depth); t.Lost() {
				return t
			}
		}
	}
	s.classify(b, status, seeds)
	return s
}

// frameStatus is what the scan found of one frame.
type frameStatus int

const (
	frameValid frameStatus = iota // passes SQLite's checks
	frameFixed                    // intact contents; header bytes restored (fixes), or its checksums
	frameBad                      // its contents cannot be trusted
)

// checkFrame checks frame f against the running checksum prev; it returns
// the frame's status and the checksum its contents compute to. A frame
// that fails only for its salts is frameFixed: its salts were damaged, or
// it is an older generation's (classify tells them apart).
func (s *WALScan) checkFrame(f []byte, prev [2]uint32) (frameStatus, [2]uint32) {
	page := f[walFrameHeaderSize:]
	sum := cksum(s.order, prev, f[:8], page)
	if sum == stored(f) {
		if binary.BigEndian.Uint32(f) == 0 {
			return frameBad, sum
		}
		if s.saltsMatch(f) {
			return frameValid, sum
		}
		return frameFixed, sum // salts damaged (or another generation's: classify tells)
	}
	return frameBad, sum
}

// classify sets Applied, LastCommit, Damaged, NotApplied(Commits) and
// Exact from the frames' statuses and running checksum seeds.
func (s *WALScan) classify(b []byte, status []frameStatus, seeds [][2]uint32) {
	// SQLite applies frames in order while they are valid, through the
	// last commit among them; a damaged header stops it before frame 1.
	for i := 1; i <= s.Frames && !s.HeaderDamaged && status[i] == frameValid; i++ {
		if commitSize(frameAt(b, i, s.PageSize)) != 0 {
			s.Applied = i
		}
	}
	// The current generation ends at the last frame that carries its
	// salts and checks: frames after it are a torn tail or an older
	// generation's, frames before it that fail are damage.
	for i := s.Frames; i >= 1; i-- {
		f := frameAt(b, i, s.PageSize)
		if status[i] == frameValid && commitSize(f) != 0 {
			s.LastCommit = i
			break
		}
	}
	if s.LastCommit <= s.Applied {
		s.LastCommit = max(s.LastCommit, s.Applied)
		s.Exact = true
		return
	}
	s.Exact = true
	s.fixes, s.alts = map[int][8]byte{}, map[int]uint32{}
	maxPage := s.maxPage(b, status)
	for i := 1; i <= s.LastCommit; i++ {
		if status[i] == frameBad {
			s.restoreHeader(b, status, i, seeds[i], maxPage)
		}
	}
	for i := 1; i <= s.LastCommit; i++ {
		f := frameAt(b, i, s.PageSize)
		switch status[i] {
		case frameValid:
			if i > s.Applied {
				s.NotApplied++
				if commitSize(f) != 0 {
					s.NotAppliedCommits++
				}
			}
		case frameFixed:
			s.Damaged = append(s.Damaged, i)
			if i > s.Applied {
				s.NotApplied++
			}
		case frameBad:
			s.Damaged = append(s.Damaged, i)
			if _, ok := s.fixes[i]; !ok && !s.superseded(b, status, i, maxPage) {
				s.Exact = false
			}
		}
	}
}

// Repair returns a copy of the log b (the one ScanWAL read) that SQLite's
// recovery applies through LastCommit: zero bytes filling its Gaps (the
// copy is longer than b by as many), the header rebuilt when it was
// damaged, the restored header bytes of damaged frames written back, and
// every frame's checksums through LastCommit chained again from the
// header. Frames after LastCommit are left as they were (SQLite ignores
// them). It returns an error when the scan is not Exact.
func (s *WALScan) Repair(b []byte) ([]byte, error) {
	if !s.Exact {
		return nil, fmt.Errorf("store: the write-ahead log cannot be repaired exactly (damaged frames %v)", s.Damaged)
	}
	out := s.aligned(b)
	if len(s.gaps) == 0 {
		out = append([]byte(nil), b...)
	}
	if s.HeaderDamaged {
		magic := uint32(walMagicLE)
		if s.order == binary.BigEndian {
			magic = walMagicBE
		}
		binary.BigEndian.PutUint32(out[0:], magic)
		binary.BigEndian.PutUint32(out[4:], walVersion)
		binary.BigEndian.PutUint32(out[8:], uint32(s.PageSize))
		copy(out[16:24], s.salts[:])
	}
	sum := cksum(s.order, [2]uint32{}, out[:24], nil)
	binary.BigEndian.PutUint32(out[24:], sum[0])
	binary.BigEndian.PutUint32(out[28:], sum[1])
	for i := 1; i <= s.LastCommit; i++ {
		f := frameAt(out, i, s.PageSize)
		if h, ok := s.fixes[i]; ok {
			copy(f[:8], h[:])
		}
		copy(f[8:16], s.salts[:])
		sum = cksum(s.order, sum, f[:8], f[walFrameHeaderSize:])
		binary.BigEndian.PutUint32(f[16:], sum[0])
		binary.BigEndian.PutUint32(f[20:], sum[1])
	}
	return out, nil
}

func (s *WALScan) saltsMatch(f []byte) bool { return string(f[8:16]) == string(s.salts[:]) }

// frameAt is frame i (from 1) of b: its 24-byte header and its page.
func frameAt(b []byte, i, pageSize int) []byte {
	off := walHeaderSize + (i-1)*(walFrameHeaderSize+pageSize)
	return b[off : off+walFrameHeaderSize+pageSize]
}

// stored is frame f's stored checksums.
func stored(f []byte) [2]uint32 {
	return [2]uint32{binary.BigEndian.Uint32(f[16:]), binary.BigEndian.Uint32(f[20:])}
}

// commitSize is frame f's database size after commit (0: not a commit).
func commitSize(f []byte) uint32 { return binary.BigEndian.Uint32(f[4:]) }

// cksum is SQLite's walChecksumBytes over a then b (each a multiple of 8
// bytes), seeded with in: s1 += x0 + s2, s2 += x1 + s1 over each pair of
// 32-bit words x0, x1 read in order. The two byte orders have a loop
// each: through the binary.ByteOrder interface the scan ran at half the
// speed (BenchmarkScanWAL).
func cksum(order binary.ByteOrder, in [2]uint32, a, b []byte) [2]uint32 {
	s1, s2 := in[0], in[1]
	for _, p := range [][]byte{a, b} {
		p = p[:len(p)&^7]
		if order == binary.BigEndian {
			for len(p) >= 8 {
				s1 += binary.BigEndian.Uint32(p) + s2
				s2 += binary.BigEndian.Uint32(p[4:]) + s1
				p = p[8:]
			}
			continue
		}
		for len(p) >= 8 {
			s1 += binary.LittleEndian.Uint32(p) + s2
			s2 += binary.LittleEndian.Uint32(p[4:]) + s1
			p = p[8:]
		}
	}
	return [2]uint32{s1, s2}
}

// unchecksum runs cksum backwards: the seed in such that cksum(order,
// in, a, b) is out.
func unchecksum(order binary.ByteOrder, out [2]uint32, a, b []byte) [2]uint32 {
	s1, s2 := out[0], out[1]
	for _, p := range [][]byte{b[:len(b)&^7], a[:len(a)&^7]} {
		for i := len(p) - 8; i >= 0; i -= 8 {
			s2 -= order.Uint32(p[i+4:]) + s1
			s1 -= order.Uint32(p[i:]) + s2
		}
	}
	return [2]uint32{s1, s2}
}

// Backfilled reports whether the commits SQLite's recovery would not apply
// are in the database file already (db, of size bytes; a checkpoint
// copied them there before the crash), so that the database SQLite
// recovers is the one the log's last commit left: every page written by a
// frame after Applied through LastCommit reads, after recovery (from the
// applied frames, else from db), as its last version through LastCommit,
// and the database's size is that commit's. A page whose last version
// through LastCommit is in a damaged frame is unknown: false.
func (s *WALScan) Backfilled(b []byte, db io.ReaderAt, size int64) bool {
	if !s.Lost() {
		return true
	}
	b = s.aligned(b)
	ps := int64(s.PageSize)
	final := map[uint32]int{}     // page → its last frame through LastCommit
	recovered := map[uint32]int{} // page → its last frame through Applied
	for i := 1; i <= s.LastCommit; i++ {
		pgno, _ := s.frameHeader(b, i)
		final[pgno] = i
		if i <= s.Applied {
			recovered[pgno] = i
		}
	}
	for _, k := range s.Damaged {
		if pgno, _ := s.frameHeader(b, k); final[pgno] == k {
			return false
		}
	}
	wantPages := int64(commitSize(frameAt(b, s.LastCommit, s.PageSize)))
	gotPages := size / ps
	if s.Applied > 0 {
		gotPages = int64(commitSize(frameAt(b, s.Applied, s.PageSize)))
	}
	if wantPages != gotPages {
		return false
	}
	buf := make([]byte, ps)
	for pgno, i := range final {
		if i <= s.Applied || int64(pgno) > wantPages {
			continue
		}
		want := frameAt(b, i, s.PageSize)[walFrameHeaderSize:]
		if j, ok := recovered[pgno]; ok {
			if !bytes.Equal(frameAt(b, j, s.PageSize)[walFrameHeaderSize:], want) {
				return false
			}
			continue
		}
		if _, err := db.ReadAt(buf, (int64(pgno)-1)*ps); err != nil || !bytes.Equal(buf, want) {
			return false
		}
	}
	return true
}
