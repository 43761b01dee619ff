package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
)

// Clearing the free space of chosen pages (ClearFreeSpace): the residue
// check's alternative to VACUUM after an erasure. secure_delete zeroes a
// deleted cell where it lives and a page it frees, but a b-tree page that
// a rebalance rebuilt keeps the old bytes of its cells in its unallocated
// space (between its cell pointers and its cell content area), where no
// delete reaches. VACUUM rewrote the whole file to drop them, its cost
// growing with the file (0.96 s of 0.99 s CPU an erasure of a 5 MB file,
// BENCHMARKS.md); this rewrites only the pages that hold what was erased.

// FreeSpace is what ClearFreeSpace found in the pages it was given, each
// list in the order given.
type FreeSpace struct {
	// Cleared are the b-tree pages (and free-list leaf pages, and
	// overflow pages a live chain ends in) whose free space held what
	// holds looks for and was overwritten with zeros.
	Cleared []int64
	// Live are the b-tree pages whose live bytes (header, cell pointers,
	// cells), and the overflow pages whose next-page number and part of
	// a live cell's payload, hold it: a row that is still stored holds
	// the same bytes. A page may be both Cleared and Live.
	Live []int64
	// Unresolved are the pages that hold it where ClearFreeSpace cannot
	// tell live bytes from free ones: an overflow page whose chain's cell
	// it was not given or did not find (ClearFreeSpace's owners), a free-list trunk
	// page, a page whose header does not parse, or any page of a file with
	// reserved bytes per page, with auto_vacuum's pointer-map pages (mnemo
	// never turns auto_vacuum on), or of 2^24 pages or more. Only a rewrite of
	// the file (Vacuum) takes what they hold away.
	Unresolved []int64
}

// ClearFreeSpace reads each of pages (page numbers, 1-based) as SQLite
// sees it (the WAL's newer pages included) and, for each that holds
// reports true for, overwrites with zeros its bytes that hold no live
// data: a b-tree page's unallocated space and the bodies of its
// freeblocks, or the whole of a free-list leaf page. It writes the pages
// through sqlite_dbpage in one write transaction (RunTx: it waits for the
// write gate as a writer does), changing no byte SQLite reads, so the
// b-tree is the same; a page that no longer holds (a write changed it
// since the caller's scan) is left as it is. What it found is returned
// (FreeSpace); the bytes reach the database file at the next checkpoint.
// A page number past the end of the file is an error; a free list that
// does not hold together (read when a page to zero is found) is an error
// matching ErrFreeListDamaged and ErrDatabaseCorrupt, nothing written.
//
// An overflow page that owners says a chain runs through (OverflowOwners;
// nil: none) is checked through SQLite: when the page owners names is a
// b-tree page on no free list with a cell whose chain, followed from
// owners' first page, reaches it, the page's bytes past that chain's
// payload are its free bytes (the last page's unused tail), the rest
// live; otherwise it is Unresolved.
func ClearFreeSpace(ctx context.Context, db *sql.DB, pages []int64, holds func(page []byte) bool, owners map[int64]OverflowOwner) (FreeSpace, error) {
	var out FreeSpace
	err := RunTx(ctx, db, func(tx *Tx) error {
		out = FreeSpace{}
		f, err := readFileHeader(ctx, tx)
		if err != nil {
			return err
		}
		f.owners = owners
		for _, pg := range pages {
			if err := clearPage(ctx, tx, &f, pg, holds, &out); err != nil {
				return fmt.Errorf("clear the free space of page %d: %w", pg, err)
			}
		}
		return nil
	})
	return out, err
}

// clearPage is ClearFreeSpace's work on page pg.
func clearPage(ctx context.Context, tx *Tx, f *fileHeader, pg int64, holds func([]byte) bool, out *FreeSpace) error {
	page, err := readPage(ctx, tx, pg)
	if err != nil || !holds(page) {
		return err
	}
	clean := append([]byte(nil), page...)
	ok, err := f.zeroFree(ctx, tx, pg, clean)
	if err != nil {
		return err
	}
	if !ok {
		out.Unresolved = append(out.Unresolved, pg)
		return nil
	}
	if holds(clean) {
		out.Live = append(out.Live, pg)
	}
	if string(clean) == string(page) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, clean, pg); err != nil {
		return err
	}
	out.Cleared = append(out.Cleared, pg)
	return nil
}

// PageSize returns the database's page size in bytes (PRAGMA page_size):
// a power of two from 512 to 65,536, 4,096 unless the file was made
// otherwise.
func PageSize(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&n); err != nil {
		return 0, fmt.Errorf("page size: %w", err)
	}
	return n, nil
}

// fileHeader is what clearPage needs of the database header (page 1).
type fileHeader struct {
	pageSize  int
	pageCount int64
	reserved  int            // bytes reserved at the end of each page
	ptrmap    bool           // auto_vacuum: pointer-map pages, which parse as no b-tree page, are among the pages
	trunk     int64          // the first free-list trunk page (0: none)
	freeCount int64          // the header's count of free-list pages
	free      map[int64]bool // free-list page → whether it is a trunk; nil until read
	owners    map[int64]OverflowOwner
}

// readFileHeader reads the database header from page 1.
func readFileHeader(ctx context.Context, tx *Tx) (fileHeader, error) {
	p, err := readPage(ctx, tx, 1)
	if err != nil {
		return fileHeader{}, fmt.Errorf("read page 1: %w", err)
	}
	if len(p) < 100 {
		return fileHeader{}, fmt.Errorf("read page 1: %d bytes", len(p))
	}
	be := binary.BigEndian
	f := fileHeader{pageSize: len(p), reserved: int(p[20]), trunk: int64(be.Uint32(p[32:])),
		freeCount: int64(be.Uint32(p[36:])), ptrmap: be.Uint32(p[52:]) != 0}
	if err := tx.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&f.pageCount); err != nil {
		return fileHeader{}, fmt.Errorf("page count: %w", err)
	}
	return f, nil
}

// readPage returns page pg as SQLite sees it in tx.
func readPage(ctx context.Context, tx *Tx, pg int64) ([]byte, error) {
	var p []byte
	err := tx.QueryRowContext(ctx, `SELECT data FROM sqlite_dbpage WHERE pgno = ?`, pg).Scan(&p)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no page %d", pg)
	}
	return p, err
}

// zeroFree zeroes the bytes of page (page number pg) that hold no live
// data, and reports false when it cannot tell which those are.
func (f *fileHeader) zeroFree(ctx context.Context, tx *Tx, pg int64, page []byte) (bool, error) {
	if f.reserved != 0 || f.ptrmap || f.pageCount >= 1<<24 || len(page) != f.pageSize {
		return false, nil
	}
	if err := f.readFreelist(ctx, tx); err != nil {
		return false, err
	}
	if trunk, ok := f.free[pg]; ok {
		if _, btree := freeRegions(page, headerAt(pg)); trunk || btree {
			// secure_delete (Open) zeroes each page it frees: a listed
			// leaf that reads as a b-tree page may be a live one a
			// damaged list names (or one freed before secure_delete);
			// only VACUUM tells.
			return false, nil
		}
		clear(page)
		return true, nil
	}
	if zeroBtreeFree(page, headerAt(pg)) {
		return true, nil
	}
	o, ok := f.owners[pg]
	if !ok {
		return false, nil
	}
	used, ok, err := f.overflowUsed(ctx, tx, pg, o)
	if ok {
		clear(page[used:])
	}
	return ok, err
}

// readFreelist reads the free list's pages into f.free, once, and
// checks that it holds together (freeListError, ErrFreeListDamaged). Each
// trunk page lists up to pageSize/4-2 leaves, so a free list of n pages
// costs about n/1,000 page reads.
func (f *fileHeader) readFreelist(ctx context.Context, tx *Tx) error {
	if f.free != nil {
		return nil
	}
	f.free = map[int64]bool{}
	for t := f.trunk; t != 0; {
		if !f.newFreePage(t) {
			return freeListError{fmt.Sprintf("trunk page %d is out of the file or met twice", t)}
		}
		p, err := readPage(ctx, tx, t)
		if err != nil {
			return fmt.Errorf("free list: %w", err)
		}
		f.free[t] = true
		n := int(binary.BigEndian.Uint32(p[4:]))
		if 8+4*n > len(p) {
			return freeListError{fmt.Sprintf("trunk page %d lists %d leaves", t, n)}
		}
		for i := range n {
			leaf := int64(binary.BigEndian.Uint32(p[8+4*i:]))
			if !f.newFreePage(leaf) {
				return freeListError{fmt.Sprintf("trunk page %d lists leaf page %d, out of the file or listed twice", t, leaf)}
			}
			f.free[leaf] = false
		}
		t = int64(binary.BigEndian.Uint32(p))
	}
	if n := int64(len(f.free)); n != f.freeCount {
		return freeListError{fmt.Sprintf("it holds %d pages, the header counts %d", n, f.freeCount)}
	}
	return nil
}

// newFreePage reports whether pg may be a free-list page not met yet: in
// the file, not page 1, not in f.free.
func (f *fileHeader) newFreePage(pg int64) bool {
	_, seen := f.free[pg]
	return !seen && pg >= 2 && pg <= f.pageCount
}

// BtreePage reports whether page, an image of page number pg of a
// database file, is a b-tree page whose header parses; false for an
// overflow page, a free-list page and a page SQLite would call corrupt.
func BtreePage(pg int64, page []byte) bool {
	_, ok := freeRegions(page, headerAt(pg))
	return ok
}

// MayHoldInFree reports whether the free bytes of page, an image of page
// number pg of a database file (as read from the file: the residue check's
// scan), may hold what holds looks for: whether one of its free regions (a
// b-tree page's unallocated space, a freeblock's body) does, or, when
// page is no b-tree page or its header does not parse, true: only
// ClearFreeSpace, which reads the free list, can tell. It lets a caller
// skip, without a read through SQLite, the pages that hold the bytes only
// in live rows. A free-list leaf page whose stale bytes happen to parse as
// a b-tree page could be taken for one: secure_delete (Open) zeroes every
// page it frees.
func MayHoldInFree(pg int64, page []byte, holds func([]byte) bool) bool {
	free, ok := freeRegions(page, headerAt(pg))
	if !ok {
		return true
	}
	for _, r := range free {
		if holds(page[r[0]:r[1]]) {
			return true
		}
	}
	return false
}

// headerAt is where page pg's b-tree header starts: after the database
// header on page 1.
func headerAt(pg int64) int {
	if pg == 1 {
		return 100
	}
	return 0
}

// zeroBtreeFree zeroes the unallocated space and the freeblock bodies of
// the b-tree page p whose header starts at h, and reports false, p
// unchanged, when p is no b-tree page or its header does not parse
// (freeRegions). It keeps each freeblock's 4-byte header (its link and
// size) and every byte SQLite reads.
func zeroBtreeFree(p []byte, h int) bool {
	free, ok := freeRegions(p, h)
	for _, r := range free {
		clear(p[r[0]:r[1]])
	}
	return ok
}

// freeRegions returns the byte ranges [start, end) of the b-tree page p
// (header at h: 100 on page 1) that hold no live data: its unallocated
// space and the bodies of its freeblocks
// (https://sqlite.org/fileformat2.html#b_tree_pages). It reports false
// when p is no b-tree page or its header does not parse. A fragment (up
// to 3 free bytes between cells) is not returned: secure_delete zeroed it
// as the freeblock it was part of.
func freeRegions(p []byte, h int) ([][2]int, bool) {
	hdr := 0
	switch p[h] {
	case 2, 5: // interior index, interior table
		hdr = 12
	case 10, 13: // leaf index, leaf table
		hdr = 8
	default:
		return nil, false
	}
	be := binary.BigEndian
	cells := int(be.Uint16(p[h+3:]))
	content := int(be.Uint16(p[h+5:]))
	if content == 0 {
		content = 65536
	}
	ptrEnd := h + hdr + 2*cells
	if ptrEnd > content || content > len(p) {
		return nil, false
	}
	free := [][2]int{{ptrEnd, content}}
	for fb, prev := int(be.Uint16(p[h+1:])), 0; fb != 0; fb = int(be.Uint16(p[fb:])) {
		if fb < content || fb <= prev || fb+4 > len(p) {
			return nil, false
		}
		size := int(be.Uint16(p[fb+2:]))
		if size < 4 || fb+size > len(p) {
			return nil, false
		}
		free = append(free, [2]int{fb + 4, fb + size})
		prev = fb + size - 1
	}
	return free, true
}
