package recall

import "sync/atomic"

// The column pass (issue 14). A hash-384 vector comes from feature hashing
// of a text's words and trigrams (embed_hash.go): a short query sets only
// 30–60 of its 384 dimensions, and its int8 codes have as few non-zero
// values. The int8 dot product of such a query with a row only sums those
// columns, so the index also keeps, per slab of chunkRows rows, a
// column-major copy of its codes (column j of the slab's rows at byte
// j·chunkRows), and a sparse query adds up only its non-zero columns over
// every row (colDots8: an AVX2 kernel, coldots8_amd64.s; pure Go
// elsewhere), nnz/dims of the row scan's work. The sums are the same
// integers as the row scan's (a column whose query code is 0 adds 0), so
// the pool and the results are identical: the exact re-score behind it is
// unchanged (TestVecColsSameAsRows).
//
// A query uses the columns when its non-zero codes are at most
// colMaxNonZero (the row scan costs about as much beyond: BenchmarkColDots8).
// Dense embedders (use-lite) never reach it, so their index never builds
// the copy.
//
// The column copy is derived from the row codes. A snapshot of sparse
// vectors stores it (snapshot_format.go, format v5), and a shard read
// from one maps it ready; otherwise a slab's columns are transposed the first
// time a sparse query scans it, at most colBuildChunks slabs per query so
// that the first use of a large resource does not pay for all of them at
// once (a slab not transposed yet is scanned by rows). From then on put
// and remove keep them up to date, and remove zeroes the vacated row's
// column bytes as it does its codes, so no copy of an erased vector
// survives (TestVecColsErase).
const (
	colMaxNonZero  = 160
	colBuildChunks = 8
)

// colChunk is the column-major copy of one slab's codes: dims columns of
// chunkRows int8 values. Searches (holding the shard's read lock) build it
// under vecIndex.colMu and publish it with ready; put and remove (holding
// the write lock) update it once ready.
type colChunk struct {
	ready atomic.Bool
	mem   *slab // nil until built
}

// colQuery is a query's non-zero columns in pairs: offs[2k] and offs[2k+1]
// are the byte offsets of a pair's columns in a slab's column block, w[k]
// their two weights (the query's codes) as int16 halves, low first. An
// odd column is paired with column 0 at weight 0.
type colQuery struct {
	offs []int
	w    []int32
}

// sparse fills cq from the query codes q8 and reports whether the column
// pass pays for them (at most colMaxNonZero non-zero codes).
func (cq *colQuery) sparse(q8 []int8, dims int) bool {
	cq.offs, cq.w = cq.offs[:0], cq.w[:0]
	n := 0
	for _, c := range q8[:dims] {
		if c != 0 {
			n++
		}
	}
	if n > colMaxNonZero || n == 0 {
		return false
	}
	var pend int8
	pending := false
	for j, c := range q8[:dims] {
		if c == 0 {
			continue
		}
		cq.offs = append(cq.offs, j*chunkRows)
		if !pending {
			pend, pending = c, true
			continue
		}
		cq.w = append(cq.w, int32(uint16(int16(pend)))|int32(c)<<16)
		pending = false
	}
	if pending {
		cq.offs = append(cq.offs, 0)
		cq.w = append(cq.w, int32(uint16(int16(pend))))
	}
	return true
}

// colsOf returns chunk c's column block when it is built, else nil.
func (x *vecIndex) colsOf(c int) []int8 {
	if c >= len(x.cols) || !x.cols[c].ready.Load() {
		return nil
	}
	return x.cols[c].mem.int8s(0, x.dims*chunkRows)
}

// buildCols transposes up to colBuildChunks slabs not transposed yet
// (caller holds the shard's read or write lock); another search doing it
// already is not waited for.
func (x *vecIndex) buildCols() {
	if x.colsBuilt.Load() == int32(len(x.chunks)) || !x.colMu.TryLock() {
		return
	}
	defer x.colMu.Unlock()
	built := 0
	for c, cc := range x.cols {
		if cc.ready.Load() {
			continue
		}
		if built == colBuildChunks {
			return
		}
		cc.mem = newSlab(x.dims*chunkRows, x)
		rows := min(chunkRows, len(x.ents)-c*chunkRows)
		transpose(cc.mem.int8s(0, x.dims*chunkRows), x.codes(c, rows), x.stride, x.dims)
		cc.ready.Store(true)
		x.colsBuilt.Add(1)
		built++
	}
}

// transpose writes the row-major codes (rows of stride bytes) into cols,
// column j at j·chunkRows, 32 rows at a time.
func transpose(cols, codes []int8, stride, dims int) {
	rows := len(codes) / stride
	for r0 := 0; r0 < rows; r0 += 32 {
		r1 := min(r0+32, rows)
		for j := range dims {
			col := cols[j*chunkRows:]
			for r := r0; r < r1; r++ {
				col[r] = codes[r*stride+j]
			}
		}
	}
}

// setCol writes slot i's codes into its slab's columns, if built (caller
// holds the shard's write lock).
func (x *vecIndex) setCol(i int) {
	cols := x.colsOf(i / chunkRows)
	if cols == nil {
		return
	}
	x.cols[i/chunkRows].mem.touch() // mapped from a snapshot: no longer its bytes
	r := i % chunkRows
	for j, c := range x.code(i)[:x.dims] {
		cols[j*chunkRows+r] = c
	}
}

// clearCol zeroes slot i's column bytes, if built.
func (x *vecIndex) clearCol(i int) {
	cols := x.colsOf(i / chunkRows)
	if cols == nil {
		return
	}
	x.cols[i/chunkRows].mem.touch()
	r := i % chunkRows
	for j := range x.dims {
		cols[j*chunkRows+r] = 0
	}
}

// addColChunk adds the (unbuilt) column copy of a new slab.
func (x *vecIndex) addColChunk() { x.cols = append(x.cols, &colChunk{}) }

// dropColChunk frees the last slab's column copy.
func (x *vecIndex) dropColChunk() {
	c := len(x.cols) - 1
	if x.cols[c].ready.Load() {
		x.cols[c].mem.free()
		x.colsBuilt.Add(-1)
	}
	x.cols[c] = nil
	x.cols = x.cols[:c]
}

// freeCols frees every column copy.
func (x *vecIndex) freeCols() {
	for _, cc := range x.cols {
		if cc.mem != nil {
			cc.mem.free()
		}
	}
	x.cols = nil
	x.colsBuilt.Store(0)
}

// colDots computes the codes' dot products with the query of every row
// of chunk c (rows of them) into out (at least rows rounded up to 32
// long), by columns when cq is non-nil and the chunk's are built, else by
// rows.
func (x *vecIndex) colDots(c, rows int, q8 []int8, cq *colQuery, out []int32) {
	if cq != nil {
		if cols := x.colsOf(c); cols != nil {
			colDots8(cols, cq, out[:(rows+31)/32*32])
			return
		}
	}
	dots8(q8, x.codes(c, rows), out[:rows])
}

// colPass selects the first pass of sparse queries: colsAuto (columns
// when the query is sparse enough), colsOff (always rows). Tests and
// benchmarks set it to compare the two.
var colPass = colsAuto

const (
	colsAuto = iota
	colsOff
)
