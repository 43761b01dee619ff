package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Overflow pages (https://sqlite.org/fileformat2.html#ovflpgs): a cell
// whose payload does not fit its b-tree page keeps its start there and
// the rest in a chain of overflow pages, each a 4-byte next-page number
// and up to usable-4 bytes of the payload; the last page's bytes past the
// payload are unused. A page's image says none of this: only the cell
// that starts the chain does. ClearFreeSpace tells a live overflow page's
// payload from its unused tail by walking the chain from its cell, which
// OverflowOwners finds in the file.

// OverflowOwner is where the chain through an overflow page starts: the
// b-tree page holding the cell whose payload spills into it, and the
// chain's first overflow page (that cell's overflow pointer).
type OverflowOwner struct {
	Page, Head int64
}

// OverflowOwners reads the database file at path (pages of pageSize
// bytes, as the file holds them: a newer image in the WAL is not read)
// and returns, for each of pages that the chain of a cell of a b-tree
// page runs through, where that chain starts; a page no chain of the
// file reaches, or reached ambiguously, is left out. It reads the file
// once, in chunks of whole pages of about 1 MiB, keeping 4 bytes a page
// and 8 a chain; it stops with ctx's error between chunks. ClearFreeSpace
// checks what it returns against the pages as SQLite reads them, so a
// file changed since is never trusted: a chain no longer found is
// Unresolved. A file of 2^24 pages or more returns none.
func OverflowOwners(ctx context.Context, path string, pageSize int, pages []int64) (map[int64]OverflowOwner, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	count := st.Size() / int64(pageSize)
	if count >= 1<<24 || len(pages) == 0 {
		return nil, nil
	}
	c := chains{prev: make([]uint32, count+1), heads: map[uint32]uint32{}, usable: pageSize}
	buf := make([]byte, max(1, (1<<20)/pageSize)*pageSize)
	for pg := int64(1); pg <= count; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(f, buf)
		for off := 0; off+pageSize <= n && pg <= count; off += pageSize {
			c.add(pg, buf[off:off+pageSize])
			pg++
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := map[int64]OverflowOwner{}
	for _, pg := range pages {
		if o, ok := c.owner(pg); ok {
			out[pg] = o
		}
	}
	return out, nil
}

// chains is what OverflowOwners keeps of the pages read.
type chains struct {
	prev   []uint32          // page → the page whose next-page number names it (ambiguous: maxUint32)
	heads  map[uint32]uint32 // a chain's first page → the b-tree page of its cell
	usable int
}

const ambiguous = ^uint32(0)

// add notes page pg's links: its cells' chains when it is a b-tree page,
// else its first 4 bytes as an overflow page's next-page number.
func (c *chains) add(pg int64, page []byte) {
	if cells, ok := cellsOf(page, headerAt(pg)); ok {
		for _, cell := range cells {
			if head, _, ok := overflowOf(page, cell, c.usable); ok && head < int64(len(c.prev)) {
				c.heads[uint32(head)] = uint32(pg)
			}
		}
		return
	}
	next := binary.BigEndian.Uint32(page)
	switch {
	case next == 0 || int64(next) >= int64(len(c.prev)):
	case c.prev[next] != 0:
		c.prev[next] = ambiguous
	default:
		c.prev[next] = uint32(pg)
	}
}

// owner walks back from pg to the first page of its chain.
func (c *chains) owner(pg int64) (OverflowOwner, bool) {
	if pg <= 0 || pg >= int64(len(c.prev)) {
		return OverflowOwner{}, false
	}
	cur := uint32(pg)
	for range len(c.prev) {
		if leaf, ok := c.heads[cur]; ok {
			return OverflowOwner{Page: int64(leaf), Head: int64(cur)}, true
		}
		cur = c.prev[cur]
		if cur == 0 || cur == ambiguous {
			return OverflowOwner{}, false
		}
	}
	return OverflowOwner{}, false // a loop
}

// cell is a b-tree cell's payload: where it starts in its page and its
// size, and the page's kind (its header's first byte).
type cell struct {
	kind    byte
	at      int
	payload int64
}

// cellsOf returns the cells holding a payload of the b-tree page p
// (header at h), and false when p is no b-tree page or a cell does not
// parse.
func cellsOf(p []byte, h int) ([]cell, bool) {
	kind := p[h]
	hdr := 8
	switch kind {
	case 10, 13:
	case 2:
		hdr = 12
	case 5:
		return nil, true // interior table cells hold no payload
	default:
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(p[h+3:]))
	if h+hdr+2*n > len(p) {
		return nil, false
	}
	cells := make([]cell, 0, n)
	for i := range n {
		at := int(binary.BigEndian.Uint16(p[h+hdr+2*i:]))
		if kind == 2 {
			at += 4 // the left child's page number
		}
		size, k := sqliteVarint(p, at)
		if k == 0 {
			return nil, false
		}
		at += k
		if kind == 13 {
			if _, k = sqliteVarint(p, at); k == 0 { // the rowid
				return nil, false
			}
			at += k
		}
		cells = append(cells, cell{kind: kind, at: at, payload: int64(size)})
	}
	return cells, true
}

// overflowOf returns the first overflow page of c's chain and how many of
// its payload's bytes the chain holds, with false when it has none (or
// its pointer lies past the page) (usable: the page's usable size).
func overflowOf(p []byte, c cell, usable int) (head, spilled int64, ok bool) {
	u := int64(usable)
	most := u - 35 // a table leaf's payload kept whole in the page
	if c.kind != 13 {
		most = (u-12)*64/255 - 23
	}
	if c.payload <= most {
		return 0, 0, false
	}
	least := (u-12)*32/255 - 23
	local := least + (c.payload-least)%(u-4)
	if local > most {
		local = least
	}
	at := int64(c.at) + local
	if at+4 > int64(len(p)) {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint32(p[at:])), c.payload - local, true
}

// sqliteVarint decodes the SQLite varint at p[at:] (big-endian, 7 bits a
// byte but the ninth's 8) and returns its length, 0 when it runs past p.
func sqliteVarint(p []byte, at int) (uint64, int) {
	var v uint64
	for i := range 9 {
		if at+i >= len(p) {
			return 0, 0
		}
		b := p[at+i]
		if i == 8 {
			return v<<8 | uint64(b), 9
		}
		v = v<<7 | uint64(b&0x7f)
		if b < 0x80 {
			return v, i + 1
		}
	}
	return v, 9
}

// overflowUsed returns how many bytes of overflow page pg the chain that
// owner says starts it holds in tx (its next-page number and its part of
// the payload): it reads owner's page, which must be a b-tree page on no
// free list with a cell whose chain starts at owner.Head, and follows the
// chain to pg. It reports false when they are not so.
func (f *fileHeader) overflowUsed(ctx context.Context, tx *Tx, pg int64, owner OverflowOwner) (int, bool, error) {
	if _, free := f.free[owner.Page]; free || owner.Page < 1 || owner.Page > f.pageCount {
		return 0, false, nil
	}
	p, err := readPage(ctx, tx, owner.Page)
	if err != nil || len(p) != f.pageSize {
		return 0, false, err
	}
	cells, ok := cellsOf(p, headerAt(owner.Page))
	if !ok {
		return 0, false, nil
	}
	for _, c := range cells {
		if head, spilled, ok := overflowOf(p, c, f.pageSize); ok && head == owner.Head {
			return f.chainUsed(ctx, tx, pg, head, spilled)
		}
	}
	return 0, false, nil
}

// chainUsed follows the chain from head, holding spilled bytes of
// payload, to pg and returns how many bytes of pg it uses.
func (f *fileHeader) chainUsed(ctx context.Context, tx *Tx, pg, head, spilled int64) (int, bool, error) {
	per := int64(f.pageSize - 4)
	for cur := head; spilled > 0; spilled -= per {
		if _, free := f.free[cur]; free || cur < 2 || cur > f.pageCount {
			return 0, false, nil
		}
		if cur == pg {
			return 4 + int(min(spilled, per)), true, nil
		}
		if spilled <= per {
			break
		}
		p, err := readPage(ctx, tx, cur)
		if err != nil {
			return 0, false, fmt.Errorf("overflow chain: %w", err)
		}
		cur = int64(binary.BigEndian.Uint32(p))
	}
	return 0, false, nil
}
