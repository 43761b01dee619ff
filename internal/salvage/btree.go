package salvage

import (
	"encoding/binary"
	"slices"
)

// The structure of a b-tree page, as SQLite's file format documents it
// (https://www.sqlite.org/fileformat2.html, 1.6 "B-tree Pages"): a header
// (8 bytes, 12 on an interior page; page 1's after the 100-byte file
// header), an array of 2-byte cell offsets, unallocated space, then the
// cell content area, where the cells lie among freeblocks (the space of
// deleted cells, chained) and fragments (gaps under 4 bytes, counted in
// the header). A page is taken as whole only when all of it adds up, as
// SQLite's integrity_check checks it (checkTreePage): every cell and
// freeblock inside the content area, none overlapping another, and the
// bytes left between them equal to the fragment count. A page whose cell
// count is garbled fails this by its count (its offsets point into the
// unallocated space or at one another) and is read only by the prefix of
// its pointer array that does add up (cellcount.go); so the stale copies
// of cells that page splits leave in the unallocated space
// (secure_delete zeroes a deleted cell where it lives, not those copies:
// internal/store's Reindex) are never read as cells.

// The b-tree page types (the first byte of the page header).
const (
	pageIndexInterior = 0x02
	pageTableInterior = 0x05
	pageIndexLeaf     = 0x0a
	pageTableLeaf     = 0x0d
)

// btreePage is a b-tree page whose structure adds up.
type btreePage struct {
	typ   byte
	cells []int // the offsets of its cells, in key order
	right int64 // the right-most child of an interior page
	// inferred is set when the header's cell count did not add up and
	// the cells were found by the pointer array instead (inferCells).
	inferred bool
}

// interior reports whether the page has children.
func (p btreePage) interior() bool {
	return p.typ == pageIndexInterior || p.typ == pageTableInterior
}

// child returns the left child that the cell at off names (an interior
// page's cells start with it).
func child(data []byte, off int) int64 {
	return int64(binary.BigEndian.Uint32(data[off:]))
}

// pageHeader is what a b-tree page's header says.
type pageHeader struct {
	typ       byte
	array     int // the offset of the cell pointer array
	ncell     int // the cell count
	content   int // the start of the cell content area
	firstFree int // the first freeblock (0: none)
	frags     int // the fragmented free bytes
	right     int64
}

// headerOf reads the header of page n (data); ok is false when it is no
// b-tree page's or its content area is out of the page.
func headerOf(n int64, data []byte, usable int) (h pageHeader, ok bool) {
	at := 0
	if n == 1 {
		at = 100
	}
	if usable > len(data) || at+12 > usable {
		return h, false
	}
	h.typ = data[at]
	hlen := 8
	switch h.typ {
	case pageIndexInterior, pageTableInterior:
		hlen = 12
		h.right = child(data, at+8)
	case pageIndexLeaf, pageTableLeaf:
	default:
		return h, false
	}
	h.array = at + hlen
	h.firstFree = int(binary.BigEndian.Uint16(data[at+1:]))
	h.ncell = int(binary.BigEndian.Uint16(data[at+3:]))
	h.content = int(binary.BigEndian.Uint16(data[at+5:]))
	if h.content == 0 {
		h.content = 65536
	}
	h.frags = int(data[at+7])
	return h, h.array <= h.content && h.content <= usable
}

// parsePage checks the structure of page n (its bytes, data) of a file
// whose pages have usable bytes each (the page size less the reserved
// bytes at each page's end) and returns it; ok is false when the page is
// no b-tree page or does not add up, by its header's cell count or by
// the count inferCells finds.
func parsePage(n int64, data []byte, usable int) (p btreePage, ok bool) {
	h, ok := headerOf(n, data, usable)
	if !ok {
		return p, false
	}
	free, ok := appendFreeblocks(nil, data, h.firstFree, h.content, usable)
	if !ok {
		return p, false
	}
	p = btreePage{typ: h.typ, right: h.right}
	if p.cells, ok = listedCells(h, data, usable, free); ok {
		return p, true
	}
	p.cells, ok = inferCells(h, data, usable, free)
	p.inferred = ok
	return p, ok
}

// listedCells returns the cells of the page (data, its header h and
// freeblocks free) that its header's cell count lists, when they and the
// freeblocks tile its content area.
func listedCells(h pageHeader, data []byte, usable int, free [][2]int) ([]int, bool) {
	if h.array+2*h.ncell > h.content {
		return nil, false
	}
	cells := make([]int, 0, h.ncell)
	spans := append(make([][2]int, 0, h.ncell+len(free)), free...)
	for i := range h.ncell {
		off := int(binary.BigEndian.Uint16(data[h.array+2*i:]))
		end, ok := cellEnd(h, data, off, usable)
		if !ok {
			return nil, false
		}
		cells, spans = append(cells, off), append(spans, [2]int{off, end})
	}
	return cells, fragments(spans, h.content, usable) == h.frags
}

// cellEnd returns the end of the cell at off of the page (data, header
// h): ok is false when it starts outside the content area or does not
// parse or end inside it.
func cellEnd(h pageHeader, data []byte, off, usable int) (int, bool) {
	if off < h.content || off >= usable {
		return 0, false
	}
	size, ok := cellSize(h.typ, data[off:usable], usable)
	return off + size, ok && off+size <= usable
}

// fragments returns the bytes of the content area (content..usable) that
// no span covers, or -1 when two spans overlap.
func fragments(spans [][2]int, content, usable int) int {
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	free, at := 0, content
	for _, s := range spans {
		if s[0] < at {
			return -1
		}
		free, at = free+s[0]-at, s[1]
	}
	return free + usable - at
}

// appendFreeblocks appends the spans of the page's chain of freeblocks,
// from the first at first; ok is false when one lies outside the content
// area or the chain does not ascend.
func appendFreeblocks(spans [][2]int, data []byte, first, content, usable int) ([][2]int, bool) {
	for fb, prev := first, 0; fb != 0; {
		if fb <= prev || fb < content || fb+4 > usable {
			return spans, false
		}
		next, size := int(binary.BigEndian.Uint16(data[fb:])), int(binary.BigEndian.Uint16(data[fb+2:]))
		if size < 4 || fb+size > usable {
			return spans, false
		}
		spans = append(spans, [2]int{fb, fb + size})
		prev, fb = fb, next
	}
	return spans, true
}

// cellSize returns the bytes of the cell that b starts with on a page of
// type typ (its local part: the payload that fits on the page and, when
// the rest overflows, the 4-byte number of the first overflow page).
func cellSize(typ byte, b []byte, usable int) (int, bool) {
	head := 0
	if typ == pageIndexInterior || typ == pageTableInterior {
		head = 4
	}
	if head > len(b) {
		return 0, false
	}
	if typ == pageTableInterior { // the child, then a rowid: no payload
		_, n := varint(b[head:])
		return head + n, n > 0
	}
	payload, n := varint(b[head:])
	if n == 0 || payload > 1<<31 {
		return 0, false
	}
	head += n
	if typ == pageTableLeaf {
		_, n := varint(b[head:])
		if n == 0 {
			return 0, false
		}
		head += n
	}
	local, overflows := localPayload(int(payload), typ == pageTableLeaf, usable)
	size := head + local
	if overflows {
		size += 4
	}
	return max(size, 4), true
}

// localPayload returns how many bytes of a payload of size bytes a cell
// holds on its page (the rest is on overflow pages), in a table leaf's
// cell (table) or an index's, by the file format's formula.
func localPayload(size int, table bool, usable int) (local int, overflows bool) {
	maxLocal := (usable-12)*64/255 - 23
	if table {
		maxLocal = usable - 35
	}
	if size <= maxLocal {
		return size, false
	}
	minLocal := (usable-12)*32/255 - 23
	k := minLocal + (size-minLocal)%(usable-4)
	if k <= maxLocal {
		return k, true
	}
	return minLocal, true
}

// varint decodes SQLite's variable-length integer that b starts with (1
// to 9 bytes, big-endian, 7 bits a byte but all 8 of a ninth) and returns
// it and its length; 0 when b ends first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := range min(len(b), 9) {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
