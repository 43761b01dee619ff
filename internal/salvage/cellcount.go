package salvage

import (
	"encoding/binary"
	"slices"
)

// A page's cell count is two bytes of its header, and one flipped bit of
// them costs the page: its pointer array then ends too soon or runs past
// its cells, and the page does not add up (readme65 F1: one bit of a
// messages leaf lost its 21 messages, though every cell was intact). So
// a page whose count does not add up has its cells found by its pointer
// array instead, never by scanning its bytes (erasure: a freed cell
// stays unread). The pointers are taken in order while each starts a
// cell that lies inside the content area, overlaps no cell taken before
// it and no freeblock, and, on a table page, has a rowid above the one
// before; the first that fails ends the array. The page is read so only
// when the cells taken and the freeblocks tile the content area with the
// header's fragment count, as a page's cells must: a pointer past the
// true count that is stale (left by a deleted cell) points at a freed
// cell, which is inside a freeblock (or before the content area, once
// the area shrank past it), or at a cell taken already, so it ends the
// array; a count too low leaves cells untaken, and their bytes then
// break the tiling unless the array goes on to them. A prefix that does
// not tile is not read: something more than the count is garbled (the
// content start, a freeblock, the fragment count, a pointer), and then a
// stale pointer can no longer be told from a live one.

// inferCells returns the cells of the page (data, its header h and
// freeblocks free) by its pointer array, above; ok is false when no
// prefix of it tiles the content area or the prefix holds no cell.
func inferCells(h pageHeader, data []byte, usable int, free [][2]int) (cells []int, ok bool) {
	used := make([]bool, usable) // the bytes of the freeblocks and the cells taken
	for _, s := range free {
		if !claim(used, s) {
			return nil, false
		}
	}
	spans := slices.Clone(free)
	var last int64
	for i := 0; h.array+2*i+2 <= h.content; i++ {
		off := int(binary.BigEndian.Uint16(data[h.array+2*i:]))
		end, ok := cellEnd(h, data, off, usable)
		if !ok {
			break
		}
		key, keyed := tableKey(h.typ, data[off:end])
		if keyed && i > 0 && key <= last || !claim(used, [2]int{off, end}) {
			break
		}
		last = key
		cells, spans = append(cells, off), append(spans, [2]int{off, end})
	}
	return cells, len(cells) > 0 && fragments(spans, h.content, usable) == h.frags
}

// claim marks the bytes of span s in used and reports whether none was
// marked before (then nothing is marked).
func claim(used []bool, s [2]int) bool {
	if slices.Contains(used[s[0]:s[1]], true) {
		return false
	}
	for i := s[0]; i < s[1]; i++ {
		used[i] = true
	}
	return true
}

// tableKey returns the rowid of cell b of a table page of type typ (a
// leaf's after its payload size, an interior's after its child); keyed
// is false on an index page.
func tableKey(typ byte, b []byte) (key int64, keyed bool) {
	switch typ {
	case pageTableLeaf:
		_, n := varint(b)
		b = b[n:]
	case pageTableInterior:
		b = b[4:]
	default:
		return 0, false
	}
	k, _ := varint(b)
	return int64(k), true
}
