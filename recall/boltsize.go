package recall

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's meta page, as go.etcd.io/bbolt/internal/common lays it out
// (file format version 2, the machine's byte order: little-endian on the
// platforms mnemo builds for): a 16-byte page header, then magic,
// version, page size and flags (4 bytes each), the root bucket (16),
// the freelist's page (8), the high-water page id pgid (8), the
// transaction id (8) and an FNV-64a checksum of the 56 bytes before it.
const (
	boltPageHeader = 16
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltMetaBytes  = 64
)

// boltMeta is what checkBoltSize reads of one meta page.
type boltMeta struct {
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readBoltMeta reads the meta page at off of f; ok is false when it is
// no valid meta page (magic, version or checksum wrong, or short).
func readBoltMeta(f io.ReaderAt, off int64) (m boltMeta, ok bool) {
	var b [boltPageHeader + boltMetaBytes]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return m, false
	}
	meta := b[boltPageHeader:]
	le := binary.LittleEndian
	h := fnv.New64a()
	h.Write(meta[:56])
	if le.Uint32(meta[0:]) != boltMagic || le.Uint32(meta[4:]) != boltVersion || h.Sum64() != le.Uint64(meta[56:]) {
		return m, false
	}
	return boltMeta{pageSize: le.Uint32(meta[8:]), pgid: le.Uint64(meta[40:]), txid: le.Uint64(meta[48:])}, true
}

// errBoltShort is checkBoltSize's error for a root.bolt shorter than the
// pages its meta page counts.
var errBoltShort = errors.New("shorter than its meta page says")

// checkBoltSize refuses a bolt file shorter than the pages its newest
// valid meta page counts (pgid × page size): a file cut short by a copy, a
// full disk or damage. bbolt maps the file and reads a page past its end
// as memory that is not there, a fault (SIGSEGV) that kills the process
// and no recover catches: scorch's persister did so while the index was
// being opened. A file whose meta pages are both invalid is left to
// bbolt, which refuses it with an error. bbolt grows the file before it
// writes a page, so a whole file is never shorter.
func checkBoltSize(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	m0, ok0 := readBoltMeta(f, 0)
	var m1 boltMeta
	ok1 := false
	if ok0 {
		m1, ok1 = readBoltMeta(f, int64(m0.pageSize))
	}
	m := m0
	switch {
	case !ok0:
		return nil // bbolt's own checks refuse it (or read the second meta by its own page size)
	case ok1 && m1.txid > m0.txid:
		m = m1
	}
	if need := m.pgid * uint64(m.pageSize); uint64(fi.Size()) < need {
		return fmt.Errorf("%s: %w (%d bytes, %d pages of %d bytes)", file, errBoltShort, fi.Size(), m.pgid, m.pageSize)
	}
	return nil
}
