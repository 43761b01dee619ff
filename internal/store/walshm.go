package store

import (
	"encoding/binary"
	"os"
	"slices"
)

// The wal-index (-shm) file's header (https://www.sqlite.org/walformat.html,
// "The WAL-Index Format"; SQLite's wal.c: WalIndexHdr, WalCkptInfo,
// walIndexTryHdr). Two 48-byte copies of the header, in the host's byte
// order: version, unused, change counter, isInit, the log's checksum byte
// order, page size, mxFrame (the log's last committed frame), nPage, the
// last frame's checksums, the log's salts (its header's bytes 16..24, as
// stored) and the checksum of the first 40 bytes. Then the checkpoint
// info at byte 96, whose first word is nBackfill: the frames a checkpoint
// has copied into the database file (and synced it) already.
const (
	shmHeaderSize    = 48
	shmNBackfillAt   = 96
	shmMinSize       = shmNBackfillAt + 4
	shmVersion       = 3007000
	shmHeaderCksumAt = 40
)

// walIndex is what a valid -shm says of its log.
type walIndex struct {
	mxFrame   int     // the log's last committed frame
	nBackfill int     // the frames copied into the database file already
	salts     [8]byte // the log header's salts
}

// readWALIndex reads the -shm file at name, when it is a regular file
// (Lstat: not through a link) whose two header copies are equal, marked
// initialised and checksum-valid, with nBackfill ≤ mxFrame; ok is false
// otherwise (absent, another kind, damaged, torn: then nothing it says is
// trusted).
func readWALIndex(name string) (w walIndex, ok bool) {
	b, ok := readShm(name)
	if !ok || len(b) < shmMinSize {
		return w, false
	}
	return parseWALIndex(b)
}

// parseWALIndex is readWALIndex over the -shm's bytes b.
func parseWALIndex(b []byte) (w walIndex, ok bool) {
	if len(b) < shmMinSize {
		return w, false
	}
	h1, h2 := b[:shmHeaderSize], b[shmHeaderSize:2*shmHeaderSize]
	order := hostOrder()
	if string(h1) != string(h2) || h1[12] == 0 || order.Uint32(h1) != shmVersion {
		return w, false
	}
	sum := shmChecksum(h1[:shmHeaderCksumAt])
	if sum != [2]uint32{order.Uint32(h1[40:]), order.Uint32(h1[44:])} {
		return w, false
	}
	w.mxFrame = int(order.Uint32(h1[16:]))
	w.nBackfill = int(order.Uint32(b[shmNBackfillAt:]))
	copy(w.salts[:], h1[32:40])
	return w, w.nBackfill <= w.mxFrame
}

// shmChecksum is SQLite's walChecksumBytes over b in the host's byte
// order (the wal-index header's checksum: nativeCksum).
func shmChecksum(b []byte) [2]uint32 {
	return cksum(hostOrder(), [2]uint32{}, b, nil)
}

// hostOrder is the host's byte order as binary.BigEndian or
// binary.LittleEndian (cksum tells the two apart by identity).
func hostOrder() binary.ByteOrder {
	if binary.NativeEndian.Uint16([]byte{0, 1}) == 1 {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// Checkpointed reports whether the -shm file at shm says that a
// checkpoint copied frames of the log scanned as s into the database file
// past those SQLite's recovery of the log would apply: the -shm is a
// regular file whose wal-index header is valid (two equal copies,
// checksummed) and carries the log's salts, and its nBackfill (the frames
// copied, and synced, into the database file) is > s.Applied. Applying
// that prefix would write older versions of pages over the newer ones the
// database file holds, so Open sets the log aside instead (WALDamage.
// SetAside), unless an exact repair of the log (WALScan.Exact) applies
// every frame through nBackfill. checkpointed is nBackfill and mxFrame the
// log's last committed frame (≥ checkpointed): the frames
// checkpointed+1..mxFrame are not in the database file. known is false
// when the -shm is absent, not a regular file, or not valid, or its salts
// are not the log's: then nothing it says is trusted, and ok is false.
func Checkpointed(shm string, s *WALScan) (checkpointed, mxFrame int, ok, known bool) {
	if s.PageSize == 0 {
		return 0, 0, false, false
	}
	w, valid := readWALIndex(shm)
	if !valid || w.salts != s.salts {
		return 0, 0, false, false
	}
	if w.nBackfill <= s.Applied || (s.Lost() && s.Exact && s.LastCommit >= w.nBackfill) {
		return w.nBackfill, w.mxFrame, false, true
	}
	return w.nBackfill, w.mxFrame, true, true
}

// removeLog removes the live log and -shm of the database at path (kept
// already); an error names the file.
func removeLog(path string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	syncDirOf(path)
	return nil
}

// CommitsAfter counts the commits among the frames after..through of the
// log b scanned as s: at least one when through > after (the -shm's
// mxFrame is a commit frame), else the commit frames among them that are
// in the log and not damaged (a damaged frame's commit flag cannot be
// trusted). Frames are numbered as the scan numbers them (Gaps filled).
func (s *WALScan) CommitsAfter(b []byte, after, through int) int {
	if through <= after || s.PageSize == 0 {
		return 0
	}
	b = s.aligned(b)
	frames := (len(b) - walHeaderSize) / (walFrameHeaderSize + s.PageSize)
	n := 0
	for i := after + 1; i <= min(through, frames); i++ {
		if !slices.Contains(s.Damaged, i) && commitSize(frameAt(b, i, s.PageSize)) != 0 {
			n++
		}
	}
	return max(n, 1)
}
