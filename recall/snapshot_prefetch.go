package recall

import (
	"os"
	"runtime/debug"
	"sync/atomic"
)

// colPrefetch is the column blocks of a snapshot's vector part (sparse
// vectors: snapColumns), mapped before the messages part is decoded, with
// the pages of the columns a search's query reads brought in on another
// goroutine meanwhile, so that the search's first pass finds them mapped.
//
// Why (issue 14, BENCHMARKS.md "First use: the query's column pages
// brought in beside the decoding"): the first query's column pass reads
// a few dozen columns (1 KiB each) of every slab, thousands of 4 KiB pages
// at 100,000 messages, each touched for the first time; on this project's VM a first
// touch is a fault or a shadow-page fill, and that pass took ~25–30 ms of
// the first LoadContext's CPU, on the search's own goroutine after the
// load. The decoding takes longer than bringing them in, so on a machine
// with a core free they come in off the first call's critical path.
//
// Only the query's columns: bringing in every column page (38 MB at
// 100,000 messages) raised the serving peak RSS by ~35 MiB in the bench,
// where the queries read fewer; a load for a write (no query) brings in
// nothing. The code rows are not brought in: the kernel maps a large
// folio of the page cache whole on a fault, and a chunk's code rows lie
// beside its float32 rows (read from the file instead: vecfile.go).
//
// Trust is unchanged: the blocks are the file's bytes mapped as mapChunks
// would map them (it adopts them, one slab each), verified in the
// background with the rest of the vector part (snapshot_verify.go).
//
// Each block is a mapping of its own (mapPrivate), so that the slab that
// adopts it, or release, unmaps exactly it: x/sys's Munmap refuses a part
// of a mapping, and freeSlab's fallback then zeroed the block in place —
// pages kept mapped for the life of the process, and a fault on a file
// truncated meanwhile (found by the review: SIGBUS in the background
// check).
type colPrefetch struct {
	blocks  [][]byte // the blocks mapped, by block
	off     int64    // the first block's offset in the file
	n       int      // blocks
	each    int64    // bytes a block
	pages   []int    // offsets in a block of the pages to bring in
	adopted []bool   // by block
	stop    atomic.Bool
	done    chan struct{}
}

// prefetchSink keeps the touching loop's reads from being dropped.
var prefetchSink atomic.Uint32

// prefetchCols maps the column blocks of sf, whose messages part meta
// describes (its header, read here without side effects), and starts
// bringing in the pages of qv's non-zero columns. It returns nil when qv
// is nil, of other dimensions or not sparse enough for the column pass,
// when the vector part does not divide into chunks and column blocks of
// the header's sizes, or the mapping fails: mapChunks then maps each block
// as before and checks the layout itself.
func (s *shard) prefetchCols(sf *snapFile, meta []byte, emb Embedder, qv []float32) *colPrefetch {
	if qv == nil {
		return nil
	}
	r := &snapReader{b: meta}
	if string(r.take(len(snapMagic))) != snapMagic || r.u32() != snapVersion {
		return nil
	}
	dims, cb, err := s.readHeader(r, emb)
	if err != nil || dims == 0 || cb <= 0 || len(qv) != dims {
		return nil
	}
	each := int64(newVecIndex(dims).colBytes())
	total := sf.size - snapFooter - sf.vecOff
	if total <= 0 || total%(cb+each) != 0 { // none (dense vectors)
		return nil
	}
	n := total / (cb + each)
	off, page := sf.vecOff+n*cb, os.Getpagesize()
	pages := colPages(qv, page)
	if len(pages) == 0 || off%int64(page) != 0 || each%int64(page) != 0 || n*each != int64(int(n*each)) {
		return nil
	}
	blocks := mapBlocks(sf.f, off, int(n), each)
	if blocks == nil {
		return nil
	}
	pf := &colPrefetch{blocks: blocks, off: off, n: int(n), each: each, pages: pages, adopted: make([]bool, n), done: make(chan struct{})}
	go pf.touch()
	return pf
}

// mapBlocks maps n blocks of each bytes of f from offset off, one mapping
// a block; nil (nothing left mapped) when one of them cannot be mapped
// from the file: mapChunks then reads or maps each block itself.
func mapBlocks(f *os.File, off int64, n int, each int64) [][]byte {
	blocks := make([][]byte, 0, n)
	for c := range n {
		b, fromFile, err := mapPrivate(f, off+int64(c)*each, int(each))
		if err == nil && !fromFile {
			freeSlab(b)
		}
		if err != nil || !fromFile {
			for _, b := range blocks {
				freeSlab(b)
			}
			return nil
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// colPages returns the offsets, in a column block, of the pages holding
// qv's non-zero columns (column j is chunkRows bytes from j·chunkRows),
// ascending, each once; none when the column pass would not be used
// (more non-zero components than colMaxNonZero).
func colPages(qv []float32, page int) []int {
	var pages []int
	nz := 0
	for j, v := range qv {
		if v == 0 {
			continue
		}
		if nz++; nz > colMaxNonZero {
			return nil
		}
		for p := j * chunkRows / page * page; p < (j+1)*chunkRows; p += page {
			if len(pages) == 0 || pages[len(pages)-1] < p {
				pages = append(pages, p)
			}
		}
	}
	return pages
}

// touch reads one byte of each of the pages of every block, until stop
// is set (release: the load is over, and the rest faults in as the
// search reads it). A fault (the file truncated meanwhile) ends it: the
// searches' own guard handles the file (snapshot_fault.go).
func (pf *colPrefetch) touch() {
	defer close(pf.done)
	defer loadMark("column prefetch (beside)")
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { _ = recover() }()
	var sum byte
	defer func() { prefetchSink.Add(uint32(sum)) }()
	for c := range pf.n {
		if pf.stop.Load() {
			return
		}
		b := pf.blocks[c]
		for _, p := range pf.pages {
			sum += b[p]
		}
	}
}

// block returns the slab of column block c for x, holding sf, when the
// vector part is n chunks and blocks of each bytes (mapChunks' layout);
// nil otherwise.
func (pf *colPrefetch) block(c, n int, each int64, sf *snapFile, x *vecIndex) *slab {
	if pf == nil || pf.n != n || pf.each != each || pf.adopted[c] {
		return nil
	}
	sl := adoptSlab(pf.blocks[c], x)
	sl.file, sl.off = sf.sh.hold(), pf.off+int64(c)*each
	pf.adopted[c] = true
	return sl
}

// prefetchFinish makes release wait for the touching to finish instead
// of stopping it (for the tests).
var prefetchFinish = false

// release stops the touching and waits for it to end (nothing may free
// the blocks before), then frees the blocks not adopted.
func (pf *colPrefetch) release() {
	if pf == nil {
		return
	}
	pf.stop.Store(!prefetchFinish)
	<-pf.done
	for c, a := range pf.adopted {
		if !a {
			freeSlab(pf.blocks[c])
		}
	}
	pf.blocks = nil
}
