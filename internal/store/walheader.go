package store

import "encoding/binary"

// The log's 32-byte header: magic (the checksums' byte order), format
// version, page size, checkpoint sequence, two salts, and the checksum of
// the first 24 bytes, which seeds frame 1's running checksum. SQLite's
// recovery ignores a log whose header fails its checksum, whole; the scan
// rebuilds it from the frames when they tell.

// readHeader reads the log's header into s; false when b holds no frame
// that checks under it (too short, or not a log). A header that fails its
// checksum is rebuilt from frame 1 when frame 1 checks under it, else
// from the first frames that chain (headerFromFrames); HeaderDamaged is
// set.
func (s *WALScan) readHeader(b []byte) bool {
	if len(b) < walHeaderSize+walFrameHeaderSize+512 {
		return false
	}
	magic := binary.BigEndian.Uint32(b)
	ps := int(binary.BigEndian.Uint32(b[8:]))
	hsum := [2]uint32{binary.BigEndian.Uint32(b[24:]), binary.BigEndian.Uint32(b[28:])}
	if (magic == walMagicLE || magic == walMagicBE) && binary.BigEndian.Uint32(b[4:]) == walVersion && validPageSize(ps) {
		s.order = byteOrder(magic)
		if cksum(s.order, [2]uint32{}, b[:24], nil) == hsum {
			s.PageSize, s.seed = ps, hsum
			copy(s.salts[:], b[16:24])
			return true
		}
	}
	// A damaged header: find the byte order and page size with which
	// frame 1 checks, seeded with the header's stored checksums or with
	// those of the header rebuilt from frame 1.
	for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		for ps := 512; ps <= 65536; ps *= 2 {
			if len(b) < walHeaderSize+walFrameHeaderSize+ps {
				break
			}
			f := frameAt(b, 1, ps)
			if binary.BigEndian.Uint32(f) == 0 {
				continue
			}
			h := rebuiltHeader(b, order, ps, f[8:16])
			for _, seed := range [][2]uint32{hsum, cksum(order, [2]uint32{}, h[:24], nil)} {
				if cksum(order, seed, f[:8], f[walFrameHeaderSize:]) == stored(f) {
					s.order, s.PageSize, s.seed, s.HeaderDamaged = order, ps, seed, true
					copy(s.salts[:], f[8:16])
					return true
				}
			}
		}
	}
	return s.headerFromFrames(b)
}

// maxHeaderSearch bounds the frames headerFromFrames looks through for
// the first two that chain.
const maxHeaderSearch = 64

// headerFromFrames finds the byte order, page size and salts of a log
// whose header is damaged past what frame 1 checks under (zeroed, a torn
// sector, frame 1 damaged too) from its frames: frame k+1 carries frame
// k's salts and checks seeded with frame k's stored checksums, for the
// first such k; the salts are frame k's. Frame 1's seed is firstSeed's.
// false when no two frames chain.
func (s *WALScan) headerFromFrames(b []byte) bool {
	for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		for ps := 512; ps <= 65536; ps *= 2 {
			frames := (len(b) - walHeaderSize) / (walFrameHeaderSize + ps)
			for k := 1; k < frames && k <= maxHeaderSearch; k++ {
				f, next := frameAt(b, k, ps), frameAt(b, k+1, ps)
				if binary.BigEndian.Uint32(next) == 0 || string(f[8:16]) != string(next[8:16]) ||
					cksum(order, stored(f), next[:8], next[walFrameHeaderSize:]) != stored(next) {
					continue
				}
				s.order, s.PageSize, s.HeaderDamaged = order, ps, true
				copy(s.salts[:], f[8:16])
				s.seed = firstSeed(b, order, ps, k)
				return true
			}
		}
	}
	return false
}

// firstSeed returns the running checksum that frame 1 of a log of order
// and page size ps, with a damaged header, was seeded with (the header's
// checksum), given that frame k+1 chains from frame k's stored checksums.
//
// Frames k down to 1 are run backwards from frame k's stored checksums
// (unchecksum); when that arrives at the checksum of a header of that
// order, page size, frame k's salts and some checkpoint sequence, frames
// 1 through k are intact (a frame's stored checksums before k may be
// damaged: the scan restores them) and that is the seed. Frame 1 alone,
// from its own stored checksums, is tried next (a damaged frame between 1
// and k). Otherwise frame 1 is damaged and cannot tell: the seed is the
// checksum of the header rebuilt with the checkpoint sequence as found,
// right when the damage spared those 4 bytes. A wrong seed fails frame 1
// (it is reported damaged, as it is), never passes a damaged one.
func firstSeed(b []byte, order binary.ByteOrder, ps, k int) [2]uint32 {
	salts := frameAt(b, k, ps)[8:16]
	run := stored(frameAt(b, k, ps))
	for i := k; i >= 1; i-- {
		f := frameAt(b, i, ps)
		run = unchecksum(order, run, f[:8], f[walFrameHeaderSize:])
	}
	if isHeaderSum(b, order, ps, salts, run) {
		return run
	}
	if f := frameAt(b, 1, ps); k > 1 {
		if seed := unchecksum(order, stored(f), f[:8], f[walFrameHeaderSize:]); isHeaderSum(b, order, ps, salts, seed) {
			return seed
		}
	}
	return cksum(order, [2]uint32{}, rebuiltHeader(b, order, ps, salts)[:24], nil)
}

// isHeaderSum reports whether sum is the checksum of a header of order,
// page size ps, salts and some checkpoint sequence (the rest of b's header
// is not read). The header's checksum is affine in its checkpoint
// sequence n, a second word: (s1, s2) = (c1 + n, c2 + 2n) for n = 0's
// (c1, c2); a sum that is no header's passes with odds 2^-32.
func isHeaderSum(b []byte, order binary.ByteOrder, ps int, salts []byte, sum [2]uint32) bool {
	h := rebuiltHeader(b, order, ps, salts)
	order.PutUint32(h[12:], 0)
	c := cksum(order, [2]uint32{}, h[:24], nil)
	order.PutUint32(h[12:], sum[0]-c[0])
	return cksum(order, [2]uint32{}, h[:24], nil) == sum
}

// rebuiltHeader is b's header with the magic of order, the format version,
// page size ps and salts; its checkpoint sequence is b's.
func rebuiltHeader(b []byte, order binary.ByteOrder, ps int, salts []byte) []byte {
	h := append([]byte(nil), b[:walHeaderSize]...)
	binary.BigEndian.PutUint32(h[0:], byteOrderMagic(order))
	binary.BigEndian.PutUint32(h[4:], walVersion)
	binary.BigEndian.PutUint32(h[8:], uint32(ps))
	copy(h[16:24], salts)
	return h
}

func byteOrder(magic uint32) binary.ByteOrder {
	if magic&1 == 1 {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func byteOrderMagic(order binary.ByteOrder) uint32 {
	if order == binary.BigEndian {
		return walMagicBE
	}
	return walMagicLE
}

func validPageSize(ps int) bool { return ps >= 512 && ps <= 65536 && ps&(ps-1) == 0 }
