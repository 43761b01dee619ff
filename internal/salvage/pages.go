package salvage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// A damaged interior page of a table hides the rows of every leaf page
// below it from SQL (a garbled cell count: every row of messages lost,
// readme63 #2), though those pages are intact. So the file is also read
// a page at a time (sqlite_dbpage: what SQLite sees, its WAL's newer pages
// included), and a table whose b-tree met damage, or whose SQL read
// failed, gets the rows of its intact leaf pages (btree.go: their
// structure adds up) that SQL did not return. A table's leaf pages are
// those reached from its root page and, past a damaged page, those that
// no b-tree reaches: such an orphan leaf goes to the one table of the
// schema whose shape all its rows fit (record.go's fits), to none when
// no table or more than one does.
//
// Erasure is a promise, so no page that may hold deleted rows is read:
// a leaf is read only by the cells its header lists (the cells of
// deleted rows are zeroed by secure_delete, and the stale copies a page
// split leaves are outside the content area), and a page on the freelist
// is never read as a leaf or an overflow page; a row SQL returns
// through a stale pointer of a leaf that adds up is dropped (stale.go).
// Orphan leaves are read only when the freelist reads whole (its page
// count is the header's): otherwise a free page could not be told from
// an orphan.

// pageFile reads the damaged file's pages.
type pageFile struct {
	get    *sql.Stmt
	size   int   // the page size
	usable int   // the bytes of a page b-trees use: the page size less the reserved bytes
	count  int64 // the file's pages
	free   map[int64]bool
	whole  bool          // the freelist read whole
	owner  map[int64]int // the pages a b-tree reached: its index in trees, -1 when several did
	trees  []btree
}

// btree is a b-tree of the damaged file's schema.
type btree struct {
	name   string
	root   int64
	leaves []int64 // its table-leaf pages whose structure adds up
	// damaged is set when a page it reaches does not add up, is out of
	// the file, free or reached twice, or adds up only by the cells its
	// pointer array lists past a garbled cell count (cellcount.go).
	damaged bool
	// lost lists the rowid ranges of the pages of a table's b-tree that
	// were reached from an interior page that adds up but do not add up
	// themselves (by the keys that name them: a leaf's rows, if any, are
	// lost unless found elsewhere), and of its root when that does not
	// (from rowid 1).
	lost []Range
	// spans lists its table-leaf pages that add up, each with the rowids
	// its parent's keys give it, contested ones included (stale.go).
	spans []leafSpan
	// broken lists the pages it reached that do not add up, each with
	// the rowids its parent's keys give it (broken.go, stale.go).
	broken []leafSpan
	// contested counts its leaves another b-tree reached too (not read).
	contested int
	// complete is set when every row it holds is on its leaves
	// (account.go).
	complete bool
}

// leafPages is what the page-level reading found: the intact leaf pages
// of each table (by name) and whether its b-tree met damage.
type leafPages struct {
	f      *pageFile
	tables map[string]*btree
}

// locate reads the damaged file's pages and finds each table's intact
// leaf pages. It returns nil when the file cannot be read so (the
// salvage then reads by SQL alone) and an error only when ctx ends.
func locate(ctx context.Context, src *sql.DB, defs []tableDef, count int64) (*leafPages, error) {
	f, err := openPageFile(ctx, src, count)
	if err != nil {
		return nil, ctx.Err()
	}
	lp := &leafPages{f: f, tables: map[string]*btree{}}
	if err := f.readTrees(ctx, src); err != nil {
		f.close()
		return nil, ctx.Err()
	}
	for i := range f.trees {
		t := &f.trees[i]
		n := len(t.leaves)
		t.leaves = slices.DeleteFunc(t.leaves, func(n int64) bool { return f.owner[n] != i })
		t.contested = n - len(t.leaves)
		lp.tables[t.name] = t
	}
	adopted, err := f.adoptOrphans(ctx, defs, lp.tables)
	if err == nil {
		err = f.account(ctx, adopted) // account.go
	}
	if err != nil {
		f.close()
		return nil, err
	}
	return lp, nil
}

// close releases the statement that reads pages.
func (lp *leafPages) close() {
	if lp != nil {
		lp.f.close()
	}
}

// openPageFile prepares the reading of pages and reads the file header
// (page 1) and the freelist.
func openPageFile(ctx context.Context, src *sql.DB, count int64) (*pageFile, error) {
	get, err := src.PrepareContext(ctx, `SELECT data FROM sqlite_dbpage WHERE pgno = ?`)
	if err != nil {
		return nil, err
	}
	f := &pageFile{get: get, count: count, owner: map[int64]int{}}
	p1, err := f.page(ctx, 1)
	if err != nil || len(p1) < 512 || string(p1[:16]) != "SQLite format 3\x00" || binary.BigEndian.Uint32(p1[56:]) != 1 {
		get.Close()
		return nil, errors.New("salvage: no page-level reading: the file header is not SQLite's, UTF-8")
	}
	f.size = len(p1)
	f.usable = f.size - int(p1[20])
	f.readFreelist(ctx, int64(binary.BigEndian.Uint32(p1[32:])), int64(binary.BigEndian.Uint32(p1[36:])))
	return f, ctx.Err()
}

func (f *pageFile) close() { f.get.Close() }

// page returns the bytes of page n.
func (f *pageFile) page(ctx context.Context, n int64) ([]byte, error) {
	var data []byte
	if err := f.get.QueryRowContext(ctx, n).Scan(&data); err != nil {
		return nil, fmt.Errorf("salvage: read page %d: %w", n, err)
	}
	return data, nil
}

// readFreelist reads the freelist from its first trunk page: each trunk
// names the next and the free pages it holds. It is whole when its pages
// number total (the header's count) and none is out of the file.
func (f *pageFile) readFreelist(ctx context.Context, trunk, total int64) {
	f.free = map[int64]bool{}
	for trunk != 0 {
		if trunk < 2 || trunk > f.count || f.free[trunk] {
			return
		}
		f.free[trunk] = true
		data, err := f.page(ctx, trunk)
		if err != nil || len(data) < f.usable {
			return
		}
		n := int(binary.BigEndian.Uint32(data[4:]))
		if n > f.usable/4-2 {
			return
		}
		for i := range n {
			leaf := int64(binary.BigEndian.Uint32(data[8+4*i:]))
			if leaf < 2 || leaf > f.count {
				return
			}
			f.free[leaf] = true
		}
		trunk = int64(binary.BigEndian.Uint32(data))
	}
	f.whole = int64(len(f.free)) == total
}

// spare reports whether page n may hold part of a row found on a leaf
// page: in the file, not free, and reached by no b-tree as one of its
// pages.
func (f *pageFile) spare(n int64) bool {
	_, reached := f.owner[n]
	return n >= 2 && n <= f.count && !f.free[n] && !reached
}

// readTrees lists the b-trees of the schema (sqlite_schema's root pages
// and its own, page 1) and walks each.
func (f *pageFile) readTrees(ctx context.Context, src *sql.DB) error {
	rows, err := src.QueryContext(ctx, `SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0`)
	if err != nil {
		return err
	}
	f.trees = []btree{{name: "sqlite_schema", root: 1}}
	for rows.Next() {
		var t btree
		if err := rows.Scan(&t.name, &t.root); err != nil {
			rows.Close()
			return err
		}
		f.trees = append(f.trees, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range f.trees {
		if err := f.walk(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// walk follows tree i from its root and claims the pages it reaches. The
// children of a page that does not add up are not followed: its garbled
// bytes would name other trees' pages; the leaves below it are orphans.
func (f *pageFile) walk(ctx context.Context, i int) error {
	t := &f.trees[i]
	seen := map[int64]bool{}
	for stack := []reach{{t.root, 1, math.MaxInt64}}; len(stack) > 0; {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := r.page
		if n < 1 || n > f.count || seen[n] || f.free[n] {
			t.damaged, t.lost = true, append(t.lost, r.keys())
			continue
		}
		seen[n] = true
		if o, ok := f.owner[n]; ok && o != i {
			f.owner[n] = -1
		} else {
			f.owner[n] = i
		}
		data, err := f.page(ctx, n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p, ok := parsePage(n, data, f.usable)
		if err != nil || !ok {
			t.damaged, t.lost = true, append(t.lost, r.keys())
			if err == nil {
				t.broken = append(t.broken, leafSpan{n, r.keys()}) // broken.go
			}
			continue
		}
		t.damaged = t.damaged || p.inferred
		switch {
		case p.interior():
			stack = append(stack, r.children(data, p)...)
		case p.typ == pageTableLeaf:
			t.leaves = append(t.leaves, n)
			t.spans = append(t.spans, leafSpan{n, r.keys()})
		}
	}
	return nil
}

// reach is a page to walk and the rowids its keys bound (from..to: a
// table b-tree's; an index's are not used).
type reach struct {
	page     int64
	from, to int64
}

// keys returns the rowids r's page may hold.
func (r reach) keys() Range { return Range{r.from, r.to} }

// children returns the children of interior page p (data) in the order
// to walk them (right-most first, the stack pops the left-most first),
// each with the rowids it may hold: a cell's child those above the key
// before and up to its own, the right-most child those above the last.
func (r reach) children(data []byte, p btreePage) []reach {
	out := []reach{{p.right, r.from, r.to}}
	for i, off := range slices.Backward(p.cells) {
		c := reach{child(data, off), r.from, r.to}
		if p.typ == pageTableInterior {
			key, _ := tableKey(p.typ, data[off:])
			c.to = min(key, r.to)
			if i > 0 {
				prev, _ := tableKey(p.typ, data[p.cells[i-1]:])
				c.from = max(min(prev, math.MaxInt64-1)+1, r.from)
			}
			if i == len(p.cells)-1 && key < math.MaxInt64 {
				out[0].from = max(key+1, r.from)
			}
		}
		out = append(out, c)
	}
	return out
}

// adoptOrphans gives each orphan table-leaf page (reached by no b-tree,
// not free) to the one table of defs whose shape all its rows fit, and
// returns those pages. It does nothing when no b-tree met damage (there
// are no orphans) or the freelist did not read whole.
func (f *pageFile) adoptOrphans(ctx context.Context, defs []tableDef, tables map[string]*btree) (map[int64]bool, error) {
	adopted := map[int64]bool{}
	if !f.whole || !f.anyDamaged() {
		return adopted, nil
	}
	for n := int64(2); n <= f.count; n++ {
		if !f.spare(n) {
			continue
		}
		data, err := f.page(ctx, n)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p, ok := parsePage(n, data, f.usable)
		if err != nil || !ok || p.typ != pageTableLeaf || len(p.cells) == 0 {
			continue
		}
		fit, err := f.fitting(ctx, data, p, defs)
		if err != nil {
			return nil, err
		}
		if t := tables[fit]; t != nil {
			t.leaves = append(t.leaves, n)
			t.damaged, adopted[n] = true, true
		}
	}
	return adopted, nil
}

// fitting returns the name of the one table of defs whose shape every
// row of leaf page p (data) fits, "" when none or several do.
func (f *pageFile) fitting(ctx context.Context, data []byte, p btreePage, defs []tableDef) (string, error) {
	fit := make([]bool, len(defs))
	for i := range fit {
		fit[i] = true
	}
	for _, off := range p.cells {
		_, rec, ok, err := f.leafRow(ctx, data, off)
		if err != nil || !ok {
			return "", err
		}
		for i, d := range defs {
			fit[i] = fit[i] && fits(d.columns, rec)
		}
	}
	name := ""
	for i, ok := range fit {
		if ok {
			if name != "" {
				return "", nil
			}
			name = defs[i].name
		}
	}
	return name, nil
}
