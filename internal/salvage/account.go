package salvage

import (
	"context"
	"encoding/binary"
)

// After the rows of its intact leaf pages are read, a table whose SQL
// read failed still lists the rowids it could not read (the rest of the
// table past the last row found, at least), though it may have lost
// nothing: the damaged page may have been an interior one, which holds
// no rows. A table is complete, and its unreadable ranges are dropped,
// when every page of the file is accounted for: free, a b-tree page that
// adds up (every orphan leaf among them given to a table), an overflow
// page of a cell of one, the lock-byte page, a page another b-tree
// reached and found damaged (its own), or a page of the table's own that
// is damaged but still an interior page of a table (its type and its
// right-most child, a table page that adds up, are intact: a garbled
// cell count). A page garbled whole could have been a leaf: the table is
// then not complete.

// account finds whether each b-tree is complete (above). It does nothing
// unless a b-tree met damage and the freelist read whole.
func (f *pageFile) account(ctx context.Context, adopted map[int64]bool) error {
	if !f.whole || !f.anyDamaged() {
		return nil
	}
	over := map[int64]bool{}
	var left []int64 // pages not free, not b-tree pages that add up
	loose := false   // an orphan table leaf with rows went to no table
	lock := int64(1<<30)/int64(f.size) + 1
	for n := int64(1); n <= f.count; n++ {
		if f.free[n] || n == lock {
			continue
		}
		data, err := f.page(ctx, n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p, ok := parsePage(n, data, f.usable)
		if err != nil || !ok {
			left = append(left, n)
			continue
		}
		if _, reached := f.owner[n]; !reached && p.typ == pageTableLeaf && len(p.cells) > 0 && !adopted[n] {
			loose = true
		}
		if err := f.markOverflow(ctx, p, data, over); err != nil {
			return err
		}
	}
	for i := range f.trees {
		t := &f.trees[i]
		t.complete = !loose && t.contested == 0
		for _, n := range left {
			if t.complete && !over[n] && !f.othersOrInterior(ctx, n, i) {
				t.complete = false
			}
		}
	}
	return nil
}

// anyDamaged reports whether a b-tree met damage.
func (f *pageFile) anyDamaged() bool {
	for _, t := range f.trees {
		if t.damaged {
			return true
		}
	}
	return false
}

// othersOrInterior reports whether page n, which does not add up, is
// another b-tree's (reached by it alone) or tree i's own but still a
// table interior page by its type and right-most child.
func (f *pageFile) othersOrInterior(ctx context.Context, n int64, i int) bool {
	o, reached := f.owner[n]
	if reached && o != i && o != -1 {
		return true
	}
	if o != i || !reached {
		return false
	}
	data, err := f.page(ctx, n)
	hdr := 0
	if n == 1 {
		hdr = 100
	}
	if err != nil || len(data) < hdr+12 || data[hdr] != pageTableInterior {
		return false
	}
	right := child(data, hdr+8)
	if right < 2 || right > f.count {
		return false
	}
	rd, err := f.page(ctx, right)
	if err != nil {
		return false
	}
	p, ok := parsePage(right, rd, f.usable)
	return ok && (p.typ == pageTableInterior || p.typ == pageTableLeaf)
}

// markOverflow marks the overflow pages of the cells of page p (data)
// in over.
func (f *pageFile) markOverflow(ctx context.Context, p btreePage, data []byte, over map[int64]bool) error {
	if p.typ == pageTableInterior {
		return nil
	}
	for _, off := range p.cells {
		next, pages := f.overflowOf(p.typ, data, off)
		for ; pages > 0 && next >= 2 && next <= f.count && !over[next]; pages-- {
			over[next] = true
			od, err := f.page(ctx, next)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil || len(od) < 4 {
				break
			}
			next = int64(binary.BigEndian.Uint32(od))
		}
	}
	return nil
}

// overflowOf returns the first overflow page of the cell at off of a
// page of type typ (data) and how many pages its chain has (0: none).
func (f *pageFile) overflowOf(typ byte, data []byte, off int) (int64, int) {
	at := off
	if typ == pageIndexInterior {
		at += 4
	}
	size, n := varint(data[at:f.usable])
	at += n
	if typ == pageTableLeaf {
		_, k := varint(data[at:f.usable])
		at += k
	}
	local, overflows := localPayload(int(size), typ == pageTableLeaf, f.usable)
	if !overflows {
		return 0, 0
	}
	rest := int(size) - local
	return child(data, at+local), (rest + f.usable - 5) / (f.usable - 4)
}
