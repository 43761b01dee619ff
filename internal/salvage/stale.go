package salvage

import (
	"context"
	"slices"
)

// SQLite returns every cell a leaf's pointer array lists up to the
// header's cell count, and its read checks no more than that each cell
// lies past the array. So a count garbled higher makes it return what
// the pointers past the true count name, and SQLite leaves those in
// place: deleting a leaf's last cell shrinks the count, not the array,
// and a row deleted with secure_delete off keeps its bytes (whole when it
// lay at the start of the content area, which then just moves past it).
// The order check (read.go's inOrder) drops such a row when it is out of
// rowid order, but not when it is the first of a read or, as the rows
// deleted last from a page are, above every live row of its page: the
// deleted row came back. So in a table whose b-tree met damage, a row SQL
// returns with a rowid that the keys above a leaf that adds up give that
// leaf (walk's spans) must be one of the cells of such a leaf
// (btree.go's listing, or cellcount.go's inference by the pointer array);
// one that is not was never a row of the table or was deleted, and is
// dropped and counted nowhere (it is no loss). A rowid that the keys
// give a leaf that does not add up must be one of the cells its
// structure still vouches for (broken.go); one that is not is dropped
// and stays unreadable. A rowid in no such span (below a damaged
// interior page) is taken as SQL returns it: no page says otherwise.

// leafSpan is a table-leaf page that adds up and the rowids the keys
// above it give it.
type leafSpan struct {
	page int64
	keys Range
}

// cellRows is what the leaves of a damaged table's b-tree that add up
// hold: the rowid ranges their keys give them, and their cells' rowids.
// A nil *cellRows holds every rowid.
type cellRows struct {
	keys []Range // merged, sorted
	ids  []int64 // sorted
}

// cellRows reads the rowids of the cells of table's leaf pages that add
// up, when its b-tree met damage; nil when it did not (SQL and the pages
// then agree) or no page-level reading was made. Only ctx's end is an
// error; a page that can no longer be read gives no span.
func (lp *leafPages) cellRows(ctx context.Context, table string) (*cellRows, error) {
	tree := lp.tables[table]
	if tree == nil || !tree.damaged {
		return nil, nil
	}
	c := &cellRows{}
	for _, s := range tree.spans {
		data, err := lp.f.page(ctx, s.page)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p, ok := parsePage(s.page, data, lp.f.usable)
		if err != nil || !ok {
			continue
		}
		for _, off := range p.cells {
			id, _ := tableKey(p.typ, data[off:lp.f.usable])
			c.ids = append(c.ids, id)
		}
		c.keys = append(c.keys, s.keys)
	}
	for _, s := range tree.broken {
		data, err := lp.f.page(ctx, s.page)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil && len(data) > 100 && data[pageHeaderAt(s.page)] == pageTableLeaf {
			c.ids = append(c.ids, vouched(s.page, data, lp.f.usable)...) // broken.go
			c.keys = append(c.keys, s.keys)
		}
	}
	slices.Sort(c.ids)
	c.keys = mergeRanges(c.keys)
	return c, nil
}

// pageHeaderAt is where page n's b-tree header starts: past the file
// header on page 1.
func pageHeaderAt(n int64) int {
	if n == 1 {
		return 100
	}
	return 0
}

// holds reports whether a row of rowid that SQL returned may be the
// table's: in no leaf span, or one of their cells.
func (c *cellRows) holds(rowid int64) bool {
	if c == nil {
		return true
	}
	_, in := slices.BinarySearchFunc(c.keys, rowid, func(r Range, id int64) int {
		switch {
		case r.To < id:
			return -1
		case r.From > id:
			return 1
		}
		return 0
	})
	if !in {
		return true
	}
	_, found := slices.BinarySearch(c.ids, rowid)
	return found
}
