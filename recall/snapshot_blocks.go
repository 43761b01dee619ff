package recall

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync/atomic"
	"unsafe"
)

// The block checksums of a snapshot's contents and term ids (format 10;
// snapshot_format.go). Of the 48 MB messages part of 100,000 messages,
// 19.5 MB are the contents and 7 MB the term ids, which the load never
// reads: summing them (and checking every term id's range) before the
// first search was ~6 ms of its CPU (issue 14). So the part's CRC-32C
// leaves those two regions out, and each 4 KiB block of them has a
// CRC-32C of its own, in a table under the part's sum; a block is
// verified the first time a message's content or term ids lying in it are
// read (shard.sound), and its term ids checked against the number of
// terms then.
//
// A block that does not match its sum is never read past its check: the
// check panics with errBlockGarbled, a runtime error, which the fault
// guard of the operation (Search, the writes, the snapshot writer:
// snapshot_fault.go) recovers; it finds the shard's file unsound
// (mappedFileSound checks every block too), drops the shard and runs the
// operation again on the shard built from the Source, as after a fault.
// Erasing a message verifies its blocks before zeroing its bytes (the
// zeros would not match the sum); the snapshot writer verifies every block
// before it copies a content or a term id.

// sumBlock is the size of a checked block of the contents and term ids:
// a page. The first LoadContext of a 100,000-message resource reads the
// contents of ~600 messages (the exchange rule's question marks) at
// random places; with blocks of 64 KiB they lay in 91 of the 298 blocks
// (6 MB summed on the search's path), with blocks of a page in 153 of
// 4,766 (0.6 MB).
const sumBlock = 4 << 10

// blockSums is one region of a mapped messages part (the contents or the
// term ids) and its blocks' sums; its zero value (nil) checks nothing.
type blockSums struct {
	mem  []byte
	sums []uint32 // by block, in the mapping
	done []atomic.Bool
	// ids is set for the term ids' region, terms the number of term ids
	// there were at load: each id read must be below it.
	ids   bool
	terms int
}

// errBlockGarbled is the panic of a block that does not match its sum: a
// runtime error, so that the fault guard checks the mapped files
// (unsoundShard) and drops the shard.
type errBlockGarbled struct{ what string }

func (e errBlockGarbled) Error() string {
	return "recall: a block of the snapshot's " + e.what + " does not match its checksum"
}

// RuntimeError marks errBlockGarbled as a runtime.Error.
func (errBlockGarbled) RuntimeError() {}

// newBlockSums returns the check of region mem with the sums of its
// blocks (nil for an empty region), or an error when their number is not
// that of its blocks.
func newBlockSums(mem []byte, sums []uint32, ids bool, terms int) (*blockSums, error) {
	if len(sums) != blocksOf(len(mem)) {
		return nil, fmt.Errorf("%w: %d block sums for %d bytes", errSnapshot, len(sums), len(mem))
	}
	if len(mem) == 0 {
		return nil, nil
	}
	return &blockSums{mem: mem, sums: sums, done: make([]atomic.Bool, len(sums)), ids: ids, terms: terms}, nil
}

// blocksOf returns the number of blocks of n bytes.
func blocksOf(n int) int { return (n + sumBlock - 1) / sumBlock }

// check verifies the blocks holding the n bytes at p, when they lie in
// the region (anything else, a message put after the load, passes); it
// panics with errBlockGarbled when one does not match. Searches call it
// concurrently (a block may be summed twice, never marked wrongly).
func (b *blockSums) check(p unsafe.Pointer, n int) {
	if b == nil || n == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(&b.mem[0]))
	at := uintptr(p)
	if at < lo || at >= lo+uintptr(len(b.mem)) {
		return
	}
	first, last := int(at-lo)/sumBlock, (int(at-lo)+n-1)/sumBlock
	for k := first; k <= last && k < len(b.sums); k++ {
		b.block(k)
	}
}

// block verifies block k.
func (b *blockSums) block(k int) {
	if b.done[k].Load() {
		return
	}
	mem := b.mem[k*sumBlock : min((k+1)*sumBlock, len(b.mem))]
	if crc32.Checksum(mem, castagnoli) != b.sums[k] {
		panic(b.garbled())
	}
	if b.ids {
		for _, t := range inPlace[uint32](mem, len(mem)/4) {
			if int(t) >= b.terms {
				panic(b.garbled())
			}
		}
	}
	b.done[k].Store(true)
}

func (b *blockSums) garbled() errBlockGarbled {
	if b.ids {
		return errBlockGarbled{"term ids"}
	}
	return errBlockGarbled{"contents"}
}

// all verifies every block.
func (b *blockSums) all() {
	if b == nil {
		return
	}
	for k := range b.sums {
		b.block(k)
	}
}

// sound verifies the blocks holding e's content and term ids, if they lie
// in the snapshot's mapping (caller holds s.mu), and returns e: call it
// before reading them (soundContent and soundTerms: one of them).
func (s *shard) sound(e *entry) *entry { return s.soundTerms(s.soundContent(e)) }

// soundContent verifies the blocks holding e's content (see sound).
func (s *shard) soundContent(e *entry) *entry {
	if s.contentSums != nil && e != nil && e.doc.Content != "" {
		s.contentSums.check(unsafe.Pointer(unsafe.StringData(e.doc.Content)), len(e.doc.Content))
	}
	return e
}

// soundTerms verifies the blocks holding e's term ids (see sound).
func (s *shard) soundTerms(e *entry) *entry {
	if s.termSums != nil && e != nil && len(e.terms) > 0 {
		s.termSums.check(unsafe.Pointer(&e.terms[0]), 4*len(e.terms))
	}
	return e
}

// soundAll verifies every block of the snapshot's contents and term ids
// (caller holds s.mu): before the shard's bytes are written to a new
// snapshot.
func (s *shard) soundAll() {
	s.contentSums.all()
	s.termSums.all()
}

// regions is the trailer of a format-10 messages part: the byte ranges of
// the contents and the term ids, [cFrom, cTo) and [tFrom, tTo), which the
// part's sum leaves out.
type regions struct{ cFrom, cTo, tFrom, tTo int64 }

// trailerSize is the size of the regions' trailer at the end of the
// messages part.
const trailerSize = 32

// readRegions reads the trailer of the messages part b (its last
// trailerSize bytes) and checks its bounds.
func readRegions(b []byte) (regions, bool) {
	if len(b) < trailerSize {
		return regions{}, false
	}
	return parseRegions(b[len(b)-trailerSize:], int64(len(b)))
}

// parseRegions decodes the trailer t of a messages part of size bytes and
// checks its bounds: the regions in order, before the trailer.
func parseRegions(t []byte, size int64) (regions, bool) {
	g := regions{int64(binary.LittleEndian.Uint64(t)), int64(binary.LittleEndian.Uint64(t[8:])),
		int64(binary.LittleEndian.Uint64(t[16:])), int64(binary.LittleEndian.Uint64(t[24:]))}
	ok := 0 <= g.cFrom && g.cFrom <= g.cTo && g.cTo <= g.tFrom && g.tFrom <= g.tTo && g.tTo <= size-trailerSize
	return g, ok
}

// summed returns the ranges of a part of size bytes that its CRC-32C
// covers: all but the two regions.
func (g regions) summed(size int64) [][2]int64 {
	return [][2]int64{{0, g.cFrom}, {g.cTo, g.tFrom}, {g.tTo, size}}
}

// partSum returns the CRC-32C of the messages part b (format 10: the
// regions of its trailer left out), ^want when the trailer is out of
// bounds. Summed 1 MiB at a time (checksum).
func partSum(b []byte, want uint32) uint32 {
	g, ok := readRegions(b)
	if !ok {
		return ^want
	}
	var sum uint32
	for _, r := range g.summed(int64(len(b))) {
		sum = checksumFrom(sum, b[r[0]:r[1]])
	}
	return sum
}

// partSink is where a snapWriter's bytes are summed: the part's CRC-32C,
// or while a region is written the sums of its blocks.
type partSink struct {
	sum    uint32
	region bool
	blocks []uint32 // the region's block sums so far
	fill   int      // bytes in the last block
}

func (p *partSink) Write(b []byte) (int, error) {
	n := len(b)
	if !p.region {
		p.sum = crc32.Update(p.sum, castagnoli, b)
		return n, nil
	}
	for len(b) > 0 {
		if p.fill == 0 || p.fill == sumBlock {
			p.blocks, p.fill = append(p.blocks, 0), 0
		}
		k := min(len(b), sumBlock-p.fill)
		p.blocks[len(p.blocks)-1] = crc32.Update(p.blocks[len(p.blocks)-1], castagnoli, b[:k])
		p.fill += k
		b = b[k:]
	}
	return n, nil
}

// regionStart makes the bytes written next a region's, left out of the
// part's sum, and returns the offset they start at.
func (sw *snapWriter) regionStart() int64 {
	sw.flushSum()
	sw.sink.region, sw.sink.blocks, sw.sink.fill = true, nil, 0
	return sw.n
}

// regionEnd ends the region started by regionStart and writes its blocks'
// sums (zero padding to a multiple of 4 bytes, then a u32 each); it
// returns the offset the region ends at.
func (sw *snapWriter) regionEnd() int64 {
	sw.flushSum()
	end := sw.n
	sw.sink.region = false
	sw.uint32s(sw.sink.blocks)
	return end
}

// flushSum hands the buffered bytes to the sink (before it changes).
func (sw *snapWriter) flushSum() {
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
}

// writeRegions writes the trailer of the messages part (zero padding to a
// multiple of 8 bytes, then the four offsets).
func (sw *snapWriter) writeRegions(g regions) {
	sw.pad(8)
	for _, v := range []int64{g.cFrom, g.cTo, g.tFrom, g.tTo} {
		sw.i64(v)
	}
}

// messagesMatch reports whether the file's messages part matches its
// CRC-32C (the regions left out) and every block of the regions its sum,
// reading them through the file (false when they cannot be read).
func (sf *snapFile) messagesMatch() bool {
	var t [trailerSize]byte
	if sf.metaEnd < trailerSize {
		return false
	}
	if _, err := sf.f.ReadAt(t[:], sf.metaEnd-trailerSize); err != nil {
		return false
	}
	g, ok := parseRegions(t[:], sf.metaEnd)
	if !ok {
		return false
	}
	var sum uint32
	for _, r := range g.summed(sf.metaEnd) {
		var ok bool
		if sum, ok = sf.sumRange(sum, r[0], r[1]); !ok {
			return false
		}
	}
	return sum == sf.metaCRC && sf.blocksMatch(g.cFrom, g.cTo) && sf.blocksMatch(g.tFrom, g.tTo)
}

// blocksMatch reports whether each block of the file's region [from, to)
// matches its sum in the table after it (at the next multiple of 4).
func (sf *snapFile) blocksMatch(from, to int64) bool {
	n := blocksOf(int(to - from))
	table := make([]byte, 4*n)
	if _, err := sf.f.ReadAt(table, (to+3)/4*4); n > 0 && err != nil {
		return false
	}
	for k := range n {
		at := from + int64(k)*sumBlock
		sum, ok := sf.sumRange(0, at, min(at+sumBlock, to))
		if !ok || sum != binary.LittleEndian.Uint32(table[4*k:]) {
			return false
		}
	}
	return true
}
