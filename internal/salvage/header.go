package salvage

import (
	"encoding/binary"
	"fmt"
	"os"
)

// The file header (the first 100 bytes of page 1) and the schema table's
// root page (the rest of page 1) are where SQLite starts: one flipped
// byte of either left nothing to salvage though every other page was
// intact (readme68 F2, F3, F10). Of them, FixHeader repairs on the
// salvage's copy only what cannot bring a row back: the magic string is
// fixed text; the page size (offset 16) is the one by which the file's
// pages parse as b-tree pages; the page count (offset 28), which SQLite
// trusts over the file's size when the "version-valid-for" number at 92
// equals the change counter at 24, is the file's size over its page size
// (lowered, every row past it was unreadable: 0 of 60,000 messages kept;
// raised past the file, every open of the engine said corrupt while the
// salvage's own, with writable_schema, clamped it and called the file
// sound); and the schema root's page type and cell count are those by
// which its cells add up (cellcount.go), when exactly one type does. The
// freelist's start and the schema's cells are never guessed: without
// them a free page, which may hold deleted rows, could not be told from
// a live one.

// sqliteMagic is the first 16 bytes of every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// FixHeader repairs the fields of page 1 of the database file at path
// (the salvage's copy, which the caller owns) described above, each only
// when it is wrong and the rest of the file says what it was, and returns
// a sentence for each it changed, for the report (none: nil). Call it
// only on a file found damaged: a sound file is read as SQLite reads it.
// Only an I/O error is an error; a file too short to hold a header is
// left for Copy to report.
func FixHeader(path string) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("salvage: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("salvage: %w", err)
	}
	h := make([]byte, 100)
	if _, err := f.ReadAt(h, 0); err != nil {
		return nil, nil
	}
	var notes []string
	if string(h[:16]) != sqliteMagic {
		copy(h, sqliteMagic)
		notes = append(notes, "the file header's magic string (offset 0) was garbled: set to SQLite's")
	}
	if size, old := inferPageSize(f, st.Size(), h[20]), headerPageSize(h); size != 0 && size != old {
		notes = append(notes, fmt.Sprintf("the file header's page size (offset 16) said %d bytes, the file's pages parse at %d: read so", rawPageSize(h), size))
		binary.BigEndian.PutUint16(h[16:], uint16(size)) // 65536 is written as 1
	}
	if note := fixPageCount(h, st.Size()); note != "" {
		notes = append(notes, note)
	}
	if len(notes) > 0 {
		if _, err := f.WriteAt(h, 0); err != nil {
			return nil, fmt.Errorf("salvage: %w", err)
		}
	}
	note, err := fixSchemaRoot(f, h)
	if err != nil {
		return nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	if len(notes) > 0 {
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("salvage: %w", err)
		}
	}
	return notes, nil
}

// fixPageCount sets the page count in header h to the file's size (size
// bytes) over its page size when the two differ, the header's count being
// the one SQLite would trust; it returns what it changed ("" when
// nothing). A file whose size is not a whole number of pages, or whose
// page size is not one SQLite writes, is not changed.
func fixPageCount(h []byte, size int64) string {
	page := headerPageSize(h)
	if page == 0 || size%page != 0 {
		return ""
	}
	have, want := binary.BigEndian.Uint32(h[28:]), uint64(size/page)
	if have == 0 || uint64(have) == want || want > 1<<32-2 || binary.BigEndian.Uint32(h[24:]) != binary.BigEndian.Uint32(h[92:]) {
		return "" // SQLite does not trust the field, or it is right
	}
	binary.BigEndian.PutUint32(h[28:], uint32(want))
	return fmt.Sprintf("the file header's page count (offset 28) said %d pages, the file holds %d of %d bytes: read as %d", have, want, page, want)
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

// rawPageSize is the page size field of header h as it stands (offset
// 16: 1 means 65536), valid or not (readme71 F7: an invalid 4128 was
// reported as 0).
func rawPageSize(h []byte) int {
	if n := int(binary.BigEndian.Uint16(h[16:])); n != 1 {
		return n
	}
	return 65536
}

// pageSizeSample is how many pages from the start of the file each page
// size is tried on.
const pageSizeSample = 64

// inferPageSize returns the page size (512 to 65536, dividing the file's
// size) by which the most of the file's first pages parse as b-tree pages
// (reserved bytes at each page's end: the header's offset 20), 0 when no
// page parses or two sizes tie. A size larger than the true one puts
// bytes past each page's end in its content area, a smaller one reads
// the middle of pages as headers: only the true one parses.
func inferPageSize(f *os.File, size int64, reserved byte) int64 {
	best, score, tie := int64(0), 0, false
	for page := int64(512); page <= 65536; page *= 2 {
		if size < page || size%page != 0 || int(reserved) >= int(page)-480 {
			continue
		}
		n := 0
		data := make([]byte, page)
		for k := int64(1); k <= min(size/page, pageSizeSample); k++ {
			if _, err := f.ReadAt(data, (k-1)*page); err != nil {
				break
			}
			if _, ok := parsePage(k, data, int(page)-int(reserved)); ok {
				n++
			}
		}
		switch {
		case n > score:
			best, score, tie = page, n, false
		case n == score && n > 0:
			tie = true
		}
	}
	if tie {
		return 0
	}
	return best
}

// fixSchemaRoot makes page 1 (header h, the rest read from f) add up as
// the schema table's root when it does not: by its page type, when
// exactly one table type makes it add up, and by its cell count, when
// the count its pointer array gives differs (cellcount.go). It returns
// what it changed ("" when nothing).
func fixSchemaRoot(f *os.File, h []byte) (string, error) {
	size := headerPageSize(h)
	if size == 0 {
		return "", nil
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return "", nil
	}
	usable := int(size) - int(h[20])
	if p, ok := parsePage(1, data, usable); ok && !p.inferred {
		return "", nil
	}
	was := [3]byte{data[100], data[103], data[104]}
	typ, found := was[0], 0
	var fixed btreePage
	for _, t := range []byte{pageTableInterior, pageTableLeaf} {
		data[100] = t
		if p, ok := parsePage(1, data, usable); ok {
			typ, fixed, found = t, p, found+1
		}
	}
	if found != 1 {
		return "", nil
	}
	b := []byte{typ, 0, 0, 0, 0}
	copy(b[1:3], data[101:103])
	binary.BigEndian.PutUint16(b[3:], uint16(len(fixed.cells)))
	if _, err := f.WriteAt(b, 100); err != nil {
		return "", fmt.Errorf("salvage: %w", err)
	}
	return fmt.Sprintf("the schema table's first page (offset 100) had page type %#02x and %d cells, its cells add up as type %#02x with %d: read so", was[0], int(was[1])<<8|int(was[2]), typ, len(fixed.cells)), nil
}
