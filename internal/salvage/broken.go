package salvage

import (
	"encoding/binary"
	"slices"
)

// A table leaf that adds up by no count (cellcount.go) is not read from
// its page, but SQLite still reads it: with cell_size_check it checks
// only that each of the first cell-count pointers names a cell past the
// pointer array that ends inside the page, never the content start, the
// freeblocks or the fragment count. So a page whose cell count is
// garbled higher together with its fragment byte or its first freeblock
// made SQLite return, through the stale pointers past the true count,
// rows deleted with secure_delete off (their cells, once at the start of
// the content area, left outside it whole), and stale.go kept them: no
// leaf that adds up spans their rowids (salv70). So the rows SQL returns
// from such a leaf (by the keys of its parent, which adds up) are kept
// only when the page's structure still vouches for their cells:
//
//   - by its content start, when a cell that a pointer of the array
//     names starts there (within the 3 bytes of a fragment): the other
//     fields besides the count are then taken as garbled, and one of the
//     first cell-count pointers is vouched for when its cell lies inside
//     the content area and in no freeblock (the chain ignored when it
//     does not parse). A cell deleted from the start of the content area
//     lies before it; one deleted elsewhere lies in a freeblock. The
//     pointer naming the content start's cell may lie past the count: a
//     leaf's cells are written downward in rowid order, so its lowest
//     cell is its last pointer's, and a count garbled lower leaves it
//     out (readme71 F3: a count one lower with the fragment byte or the
//     first freeblock garbled lost every row of the leaf, not the one).
//     Rows are still vouched for only through the count's pointers: a
//     pointer past it names no row SQLite returns.
//   - else by its cell count, when the content start is what is garbled:
//     every one of the first cell-count pointers names a cell past the
//     array, in rowid order, none overlapping another or a freeblock of
//     a chain that parses, and from the lowest of them the cells and
//     freeblocks leave the header's fragment count (less at most 3).
//
// A row SQL returns from the leaf's span that neither vouches for is
// dropped; its rowid stays unreadable (btree.lost), as those of every row
// of the page SQL did not return. What neither can tell: a stale pointer
// into a freeblock when the chain is garbled too, and a count and content
// start garbled together (three fields of the page's header). The second
// no check of the structure can tell: rows are appended in rowid order
// from the page's end down, so every prefix of the pointer array tiles
// from its lowest cell, and a cell deleted from the start of the content
// area adjoins the live ones: with the count one higher it is vouched
// for (by byContent when the content start is set to its cell, else by
// byCount) as the page before the delete would be, and refusing it would
// refuse a content start garbled alone (rev70 #7 item 3: a count
// one higher with the content start at that cell or 256 below it brought
// the deleted row back).

// vouched returns the rowids of the cells of table-leaf page n (data),
// which does not add up, that its structure vouches for (above), sorted.
func vouched(n int64, data []byte, usable int) []int64 {
	h, ok := headerOf(n, data, usable)
	if h.typ != pageTableLeaf || usable > len(data) {
		return nil
	}
	if ok {
		free, fok := appendFreeblocks(nil, data, h.firstFree, h.content, usable)
		if !fok {
			free = nil
		}
		if ids, top := byContent(h, data, usable, free); top {
			return ids
		}
	}
	if ids, ok := byCount(h, data, usable); ok {
		return ids
	}
	return nil
}

// byContent returns the rowids of the cells that the first h.ncell
// pointers name inside the content area and outside the freeblocks
// free; top reports whether a cell so placed starts at the content
// start, named by one of those pointers or one past them.
func byContent(h pageHeader, data []byte, usable int, free [][2]int) (ids []int64, top bool) {
	for i := 0; h.array+2*i+2 <= h.content && (i < h.ncell || !top); i++ {
		off := int(binary.BigEndian.Uint16(data[h.array+2*i:]))
		end, ok := cellEnd(h, data, off, usable)
		if !ok || slices.ContainsFunc(free, func(s [2]int) bool { return off < s[1] && s[0] < end }) {
			continue
		}
		top = top || off <= h.content+3
		if i < h.ncell {
			id, _ := tableKey(h.typ, data[off:end])
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, top
}

// byCount returns the rowids of the page's first h.ncell cells when they
// add up from the lowest of them (above); ok is false otherwise.
func byCount(h pageHeader, data []byte, usable int) (ids []int64, ok bool) {
	first := h.array + 2*h.ncell
	if h.ncell == 0 || first > usable {
		return nil, false
	}
	free, ok := appendFreeblocks(nil, data, h.firstFree, first, usable)
	if !ok {
		return nil, false
	}
	used := make([]bool, usable)
	for _, s := range free {
		if !claim(used, s) {
			return nil, false
		}
	}
	spans, low := slices.Clone(free), usable
	at := h
	at.content = first
	for i := range h.ncell {
		off := int(binary.BigEndian.Uint16(data[h.array+2*i:]))
		end, ok := cellEnd(at, data, off, usable)
		if !ok || !claim(used, [2]int{off, end}) {
			return nil, false
		}
		id, _ := tableKey(h.typ, data[off:end])
		if i > 0 && id <= ids[i-1] {
			return nil, false
		}
		ids, spans, low = append(ids, id), append(spans, [2]int{off, end}), min(low, off)
	}
	for _, s := range free {
		low = min(low, s[0])
	}
	frags := fragments(spans, low, usable)
	return ids, frags >= 0 && frags <= h.frags && h.frags-frags <= 3
}
