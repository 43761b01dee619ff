package salvage

import (
	"encoding/binary"
	"fmt"
	"os"
)

// The file header (the first 100 bytes of page 1) holds, at offset 28,
// the database's size in pages, which SQLite trusts over the file's size
// when the "version-valid-for" number at 92 equals the change counter at
// 24. One flipped byte there lowered it (readme68 F2: 7070 pages read as
// 158: every row past page 158 unreadable, 0 of 60,000 messages kept) or
// raised it past the file (F10: every open of the engine says the file is
// corrupt, while the salvage's own open, with writable_schema, clamps it
// and called the file sound).

// FixPageCount sets the page count in the header of the database file at
// path (the salvage's copy, which the caller owns) to the file's size
// over its page size when the two differ, the header's count being the
// one SQLite would trust; it then reads the file as SQLite does when
// that field is invalid. It returns what it changed, for the report
// ("" when nothing). Call it only on a file found damaged: a sound file
// is read as SQLite reads it. A file whose size is not a whole number of
// pages, or whose page size is not one SQLite writes, is not changed.
func FixPageCount(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return "", fmt.Errorf("salvage: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("salvage: %w", err)
	}
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return "", nil // too short to hold a header: Copy says so
	}
	size := headerPageSize(h[:])
	if size == 0 || st.Size()%size != 0 {
		return "", nil
	}
	have, want := binary.BigEndian.Uint32(h[28:]), uint64(st.Size()/size)
	if have == 0 || uint64(have) == want || want > 1<<32-2 || binary.BigEndian.Uint32(h[24:]) != binary.BigEndian.Uint32(h[92:]) {
		return "", nil // SQLite does not trust the field, or it is right
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(want))
	if _, err := f.WriteAt(b[:], 28); err != nil {
		return "", fmt.Errorf("salvage: %w", err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("salvage: %w", err)
	}
	return fmt.Sprintf("the file header's page count (offset 28) said %d pages, the file holds %d of %d bytes: read as %d", have, want, size, want), nil
}

// headerPageSize is the page size that header h gives (offset 16: 1 means
// 65536), 0 when it is not a power of two from 512 to 65536.
func headerPageSize(h []byte) int64 {
	n := int64(binary.BigEndian.Uint16(h[16:]))
	if n == 1 {
		n = 65536
	}
	if n < 512 || n > 65536 || n&(n-1) != 0 {
		return 0
	}
	return n
}
