package salvage

import (
	"context"
	"slices"
)

// fromPages copies the rows of t's intact leaf pages (lp) that SQL did
// not return, when t's b-tree met damage or SQL could not read a range
// of it: each row whose values fit t's shape goes through insert as a
// row read by SQL does (valid.go, the schema), one that does not is
// garbled. The rowids read so leave the unreadable ranges, and all of
// them do when the table is complete (account.go); those of its pages
// that do not add up join them (btree.lost).
func (c *tableCopy) fromPages(ctx context.Context, lp *leafPages, t tableDef) error {
	tree := lp.tables[t.name]
	if tree == nil || !tree.damaged && len(c.res.Unreadable) == 0 {
		return nil
	}
	slices.Sort(c.sqlRead)
	var found []int64
	seen := map[int64]bool{}
	whole := tree.complete // every cell of its leaves read
	for _, n := range tree.leaves {
		data, err := lp.f.page(ctx, n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p, ok := parsePage(n, data, lp.f.usable)
		if err != nil || !ok {
			whole = false
			continue
		}
		for _, off := range p.cells {
			rowid, rec, ok, err := lp.f.leafRow(ctx, data, off)
			if err != nil {
				return err
			}
			whole = whole && ok
			if !ok || seen[rowid] {
				continue
			}
			if _, read := slices.BinarySearch(c.sqlRead, rowid); read {
				continue
			}
			found, seen[rowid] = append(found, rowid), true
			if !fits(t.columns, rec) {
				c.res.Garbled++
				continue
			}
			kept := c.res.Kept
			if err := c.insert(ctx, rowOf(t.columns, rowid, rec)); err != nil {
				return err
			}
			c.res.FromPages += c.res.Kept - kept
		}
	}
	slices.Sort(found)
	read := append(slices.Clone(c.sqlRead), found...)
	slices.Sort(read)
	// The rowids of a page that does not add up are unreadable though SQL
	// read past it without an error (a garbled cell count: it returned
	// some of the page's rows or none), unless read.
	lost := subtract(mergeRanges(slices.Clone(tree.lost)), read)
	c.res.Unreadable = mergeRanges(append(subtract(c.res.Unreadable, found), lost...))
	if whole { // account.go: no row of the table was on a page not read
		c.res.Unreadable = nil
	}
	return nil
}

// subtract returns the ranges rs (sorted, disjoint) less the rowids ids
// (sorted).
func subtract(rs []Range, ids []int64) []Range {
	var out []Range
	for _, r := range rs {
		i, _ := slices.BinarySearch(ids, r.From)
		from, rest := r.From, true
		for ; i < len(ids) && ids[i] <= r.To; i++ {
			if ids[i] > from {
				out = append(out, Range{from, ids[i] - 1})
			}
			if ids[i] == r.To {
				rest = false
				break
			}
			from = ids[i] + 1
		}
		if rest {
			out = append(out, Range{from, r.To})
		}
	}
	return out
}
