package recall

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// The vector channel's index (issue 14). chromem-go scans every document of
// a collection for every query, handing each to worker goroutines through
// a channel: 90 ms per query over 100,000 vectors (BENCHMARKS.md). vecIndex
// replaces that scan while serving. It holds each vector twice in compact
// form, in slabs of chunkRows rows outside the Go heap (slab.go): its
// float32 values (L2-normalised) and its int8 codes (each dimension scaled
// by 127/max|x| of its vector and rounded; the scale kept per row), 384
// bytes per 384-dimension vector. A query
//
//  1. computes the integer dot product of its own int8 codes with every
//     row (an AVX2 kernel, dot8_amd64.s, 32 dimensions per step; pure Go
//     elsewhere) and scales it by the row's scale: the cosine within the
//     rounding of the codes;
//  2. keeps the best candidates among the rows the filter allows
//     (pre-filtering: what the filter removes never takes a place in the
//     pool), a pool of max(poolFactor × n, minPool);
//  3. scores the pool exactly, with the float32 vectors and the same sum
//     as chromem-go (cosine), and returns the top n.
//
// An integer row (vecexact.go: a hash-384 vector) keeps the integers its
// values are made of as its codes instead, and its exact cosine comes
// from them in step 3 where reading its float32 values would cost a
// system call.
//
// In front of step 1, a large shard of dense vectors first narrows the
// rows to a few thousand by the signs of their dimensions (vecsigns.go).
//
// Shards of at most exactRows vectors skip steps 1–2: every allowed vector
// is scored exactly, which already beats chromem-go's scan since it needs
// no goroutines, channels or document copies.
//
// chromem-go is the exact reference: with Tuning.ExactVectors a shard also
// keeps a chromem-go collection and the vector channel scans it instead
// (TestVectorIndexRecall and `mnemo bench --exactness` compare the two).
// Without it no collection is built: its per-document maps and copies
// would more than double the memory of a large resource.
const (
	poolFactor = 4
	minPool    = 64
	exactRows  = 2048
	// chunkRows is the number of rows per slab: 1.9 MB at 384
	// dimensions, of which a small resource touches only its rows' pages.
	chunkRows = 1024
)

// vecIndex holds the shard's vectors (caller holds the shard's lock: mu
// for writing to change it, for reading to search). Slot i lives in
// chunks[i/chunkRows], row i%chunkRows.
type vecIndex struct {
	dims   int
	stride int // bytes per code row: dims rounded up to 32
	words  int // uint64 words per sign row: dims rounded up to 64, / 64
	// zeros counts the components equal to 0 over every row: the sign
	// pass (vecsigns.go) runs only when they are few (dense vectors).
	zeros int
	// signed: every row's signs are derived (from the first time the
	// index was large and dense enough for the sign pass; until then no
	// row pays for them).
	signed bool
	chunks []*slab
	scales []float32 // per slot: max|x| / 127
	ents   []*entry  // per slot
	// cols holds per slab the column-major copy of its codes (veccols.go),
	// built by searches under colMu; colsBuilt counts the built ones.
	cols      []*colChunk
	colMu     sync.Mutex
	colsBuilt atomic.Int32
	// kept holds a search's scratch for the next (scratchSlot): its dots
	// are 4 bytes a row.
	kept scratchSlot[scratch]
}

func newVecIndex(dims int) *vecIndex {
	return &vecIndex{dims: dims, stride: (dims + 31) / 32 * 32, words: (dims + 63) / 64}
}

// len returns the number of vectors (0 for a nil index).
func (x *vecIndex) len() int {
	if x == nil {
		return 0
	}
	return len(x.ents)
}

// chunkBytes is the size of one slab: chunkRows code rows, then chunkRows
// float32 rows, then chunkRows sign rows.
func (x *vecIndex) chunkBytes() int { return chunkRows * (x.stride + 4*x.dims + 8*x.words) }

// code returns slot i's int8 codes (stride bytes).
func (x *vecIndex) code(i int) []int8 {
	return x.chunks[i/chunkRows].int8s(i%chunkRows*x.stride, x.stride)
}

// codes returns the code rows of chunk c in use (rows × stride bytes).
func (x *vecIndex) codes(c, rows int) []int8 {
	return x.chunks[c].int8s(0, rows*x.stride)
}

// vec returns slot i's float32 vector (dims values, unit length).
func (x *vecIndex) vec(i int) []float32 {
	return x.chunks[i/chunkRows].float32s(chunkRows*x.stride+i%chunkRows*4*x.dims, x.dims)
}

// vector returns e's vector, nil when it has none (an entry of another
// shard's index is never passed).
func (x *vecIndex) vector(e *entry) []float32 {
	if x == nil || e.vslot == 0 {
		return nil
	}
	return x.rowVec(e.vslot-1, nil)
}

// encode writes v's int8 codes into dst (stride bytes) and returns the
// scale that maps a code back to v's value.
func encode8(dst []int8, v []float32) float32 {
	clear(dst)
	var m float32
	for _, f := range v {
		m = max(m, f, -f)
	}
	if m == 0 {
		return 0
	}
	k := 127 / m
	for i, f := range v {
		// Round half away from zero; |f·k| ≤ 127.
		if y := f * k; y >= 0 {
			dst[i] = int8(y + 0.5)
		} else {
			dst[i] = int8(y - 0.5)
		}
	}
	return m / 127
}

// put stores v (dims values, unit length: normalised) as e's vector,
// adding a slot or replacing its values.
func (x *vecIndex) put(e *entry, v []float32) {
	if e.vslot != 0 {
		x.zeros -= zeroCount(x.vec(e.vslot - 1))
	} else {
		if len(x.ents) == len(x.chunks)*chunkRows {
			x.addChunk()
		}
		x.ents = append(x.ents, e)
		x.scales = append(x.scales, 0)
		e.vslot = len(x.ents)
	}
	i := e.vslot - 1
	x.chunks[i/chunkRows].touch()
	copy(x.vec(i), v)
	x.scales[i] = encodeRow(x.code(i), v)
	x.setCol(i)
	if x.signed {
		x.zeros += x.encodeSigns(i)
	} else {
		x.zeros += zeroCount(v)
		x.maybeSign()
	}
}

// remove deletes e's vector: the last slot moves into its place and the
// vacated bytes (code, float32 values and signs) are zeroed, and a slab left
// empty is unmapped, so no copy of an erased message's vector stays in
// memory.
func (x *vecIndex) remove(e *entry) {
	if x == nil || e.vslot == 0 {
		return
	}
	i, last := e.vslot-1, len(x.ents)-1
	x.chunks[i/chunkRows].touch()
	x.chunks[last/chunkRows].touch()
	x.zeros -= zeroCount(x.vec(i))
	if i != last {
		copy(x.code(i), x.code(last))
		copy(x.vec(i), x.vec(last))
		copy(x.signs(i), x.signs(last))
		x.scales[i] = x.scales[last]
		x.ents[i] = x.ents[last]
		x.ents[i].vslot = i + 1
		x.setCol(i)
	}
	x.clearCol(last)
	clear(x.code(last))
	clear(x.vec(last))
	clear(x.signs(last))
	x.ents[last] = nil
	x.ents = x.ents[:last]
	x.scales = x.scales[:last]
	e.vslot = 0
	if last%chunkRows == 0 {
		c := len(x.chunks) - 1
		x.chunks[c].free()
		x.chunks[c] = nil
		x.chunks = x.chunks[:c]
		x.dropColChunk()
	}
}

// addChunk adds an empty slab (and its column copy, unbuilt).
func (x *vecIndex) addChunk() {
	x.chunks = append(x.chunks, newSlab(x.chunkBytes(), x))
	x.addColChunk()
}

// free releases the slabs; the index is empty afterwards (its entries'
// slots are stale: the shard is being unloaded).
func (x *vecIndex) free() {
	if x == nil {
		return
	}
	for _, c := range x.chunks {
		c.free()
	}
	x.freeCols()
	x.kept.drop()
	x.chunks, x.scales, x.ents = nil, nil, nil
	x.zeros, x.signed = 0, false
}

// scratch holds per-query buffers, reused across queries.
type scratch struct {
	dots []int32
	q8   []int8
	qs   []uint64 // the query's signs
	ham  []uint16 // per row: Hamming distance to the query, noRow if filtered out
	sub  []int32  // the rows the sign pass keeps
	cq   colQuery // the query's non-zero columns (veccols.go)
	best []cand   // candidates' selection buffer
	mask []uint8  // candidates' rows above the floor, a bit each (scoreMask)
	bs   []bounded
	// touched keeps touchRows' result (vecrescore.go).
	touched int8
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// takeScratch returns the scratch x kept from its last search, else one
// from the pool.
func (x *vecIndex) takeScratch() *scratch {
	if sc := x.kept.take(); sc != nil {
		return sc
	}
	return scratchPool.Get().(*scratch)
}

// giveScratch keeps sc for x's next search, or returns it to the pool
// (x keeps one already, or sc's dots are too large for x).
func (x *vecIndex) giveScratch(sc *scratch) {
	if keepsScratch(cap(sc.dots), len(x.ents)) && x.kept.give(sc) {
		return
	}
	scratchPool.Put(sc)
}

// search returns the n vectors most similar to q (unit length) among those
// keep accepts (nil: all), best first, with their exact cosine: all of them
// exactly for a small index, else the exact top of the code-ranked pool.
// It is searchQuery with no context (the internal tests').
func (x *vecIndex) search(q []float32, n int, keep func(*entry) bool) []scored {
	out, _ := x.searchQuery(context.Background(), x.query(q), n, keep)
	return out
}

// searchQuery is search with the query's scorer (vecexact.go). It checks
// ctx before it starts and every cancelEvery rows of its scans (the
// codes' dots, the signs' distances, the exact pass), and returns ctx's
// error when that ended: at 100k rows the first pass reads ~40 MB of
// codes.
func (x *vecIndex) searchQuery(ctx context.Context, vq *vecQuery, n int, keep func(*entry) bool) ([]scored, error) {
	rows := len(x.ents)
	if err := ctxErr(ctx); n <= 0 || rows == 0 || err != nil {
		return nil, err
	}
	pool := max(poolFactor*n, minPool)
	if rows <= exactRows || pool >= rows {
		return x.exact(ctx, vq, n, keep, nil)
	}
	sc := x.takeScratch()
	q := vq.q
	if x.signsPay(n) {
		defer x.giveScratch(sc)
		sub, err := x.signCandidates(ctx, sc, q, max(signFactor*n, minSignPool), keep)
		if err != nil {
			return nil, err
		}
		return x.rescore(sc, vq, n, x.subCandidates(sc, q, pool, sub)), nil
	}
	kept := false
	defer func() {
		if !kept {
			x.giveScratch(sc)
		}
	}()
	cands, err := x.candidates(ctx, sc, q, pool, keep)
	if err != nil {
		return nil, err
	}
	out := x.rescore(sc, vq, n, cands)
	if vq.keepFirst {
		// Every row's dots are in sc: the neighbours' bounds (firstBound).
		qs, el2 := queryResidual(q, sc.query8(x.stride, q))
		kept = vq.keep(sc, qs, el2)
	}
	return out, nil
}

// cand is a row and its approximate score.
type cand struct {
	s float32
	i int32
}

// candidates returns the pool best rows for q by their codes, among the
// allowed ones, with their code scores (in no order), in sc's memory; ctx's
// error when it ended (checked every cancelEvery rows of the dots).
func (x *vecIndex) candidates(ctx context.Context, sc *scratch, q []float32, pool int, keep func(*entry) bool) ([]cand, error) {
	q8 := sc.query8(x.stride, q)
	if cap(sc.dots) < len(x.chunks)*chunkRows {
		sc.dots = make([]int32, len(x.chunks)*chunkRows)
	}
	var cq *colQuery
	if colPass != colsOff && sc.cq.sparse(q8, x.dims) {
		cq = &sc.cq
		x.buildCols()
	}
	dots := sc.dots[:len(x.ents)]
	for c := range x.chunks {
		lo := c * chunkRows
		if err := ctxErrEvery(ctx, lo); err != nil {
			return nil, err
		}
		hi := min(lo+chunkRows, len(dots))
		x.colDots(c, hi-lo, q8, cq, sc.dots[lo:lo+chunkRows])
	}
	// The pool best: most rows are at or under the floor, the pool-th
	// best of the buffer when it was last cut (selectBest); scoreMask
	// finds the others eight rows a step.
	sel := poolSel{buf: sc.best[:0], pool: pool, floor: float32(math.Inf(-1))}
	if cap(sel.buf) < 2*pool {
		sel.buf = make([]cand, 0, 2*pool)
	}
	if len(sc.mask) < chunkRows/8 {
		sc.mask = make([]uint8, chunkRows/8)
	}
	scales := x.scales
	guessed := false
	if g, ok := sampleFloor(x, dots, keep, pool); ok {
		sel.floor, guessed = g, true
	}
scan:
	for lo := 0; lo < len(dots); lo += chunkRows {
		hi := min(lo+chunkRows, len(dots))
		full := lo + (hi-lo)/8*8
		mask := sc.mask[:(full-lo)/8]
		scoreMask(dots[lo:full], scales[lo:full], sel.floor, mask)
		for g, m := range mask {
			for m != 0 {
				i := lo + 8*g + bits.TrailingZeros8(m)
				m &= m - 1
				sel.offer(x, keep, float32(dots[i])*abs32(scales[i]), i)
			}
		}
		for i := full; i < hi; i++ {
			sel.offer(x, keep, float32(dots[i])*abs32(scales[i]), i)
		}
	}
	if guessed && !sel.cut && len(sel.buf) < pool {
		// Fewer than pool rows above the guess: it was no floor.
		sel.buf, sel.floor, guessed = sel.buf[:0], float32(math.Inf(-1)), false
		goto scan
	}
	if len(sel.buf) > pool {
		sel.buf = selectBest(sel.buf, pool)
	}
	sc.best = sel.buf
	return sel.buf, nil // sc's until searchQuery returns it to the pool
}

// poolSel is the first pass's selection of the pool best candidates.
type poolSel struct {
	buf   []cand
	pool  int
	floor float32 // the pool-th best at the last cut, or sampleFloor's guess
	cut   bool    // the buffer was cut: pool rows at least were above the floor
}

// sampleStride is the spacing of the rows sampleFloor scores.
const sampleStride = 64

// sampleFloor guesses a floor of the first pass from every
// sampleStride-th allowed row: just under the score that about 1.5 × pool
// rows of all reach (of the sample, the 1.5 × pool / sampleStride-th
// best). Rows at or under it are not offered, so most are never compared
// twice; the guess holds when at least pool rows are above it, and
// candidates checks that and scans again without it otherwise. false when
// the sample is too small to guess from.
func sampleFloor(x *vecIndex, dots []int32, keep func(*entry) bool, pool int) (float32, bool) {
	j := (3*pool + 2*sampleStride - 1) / (2 * sampleStride)
	if len(dots) < 8*sampleStride*j {
		return 0, false
	}
	buf := sampleBufs.Get().(*[]cand)
	defer sampleBufs.Put(buf)
	sample := (*buf)[:0]
	for i := 0; i < len(dots); i += sampleStride {
		if keep == nil || keep(x.ents[i]) {
			sample = append(sample, cand{float32(dots[i]) * x.scale(i), int32(i)})
		}
	}
	*buf = sample
	if len(sample) < 4*j {
		return 0, false
	}
	g := selectBest(sample, j)[j-1].s
	return math.Nextafter32(g, float32(math.Inf(-1))), true
}

// sampleBufs holds sampleFloor's sample buffers (one row in sampleStride:
// 12.5 KB at 100k rows), reused across searches so that a search at 100k
// does not leave them to the garbage collector.
var sampleBufs = sync.Pool{New: func() any { return new([]cand) }}

// offer adds row i of score s when it is above the floor and keep
// allows it, cutting the buffer to the pool best when it is full.
func (p *poolSel) offer(x *vecIndex, keep func(*entry) bool, s float32, i int) {
	if s <= p.floor || keep != nil && !keep(x.ents[i]) {
		return
	}
	p.buf = append(p.buf, cand{s, int32(i)})
	if len(p.buf) == 2*p.pool {
		p.buf = selectBest(p.buf, p.pool)
		p.floor, p.cut = p.buf[p.pool-1].s, true
	}
}

// better reports whether a ranks before b: the higher score, then the
// lower slot (the order of the first pass's pool).
func better(a, b cand) bool { return a.s > b.s || a.s == b.s && a.i < b.i }

// selectBest reorders c (more than k candidates) so that c[:k] are its k
// best (better), c[k-1] the worst of them, and returns c[:k]: a
// quickselect, expected linear. Offering the rows in slot order and
// refusing any at or under c[k-1].s after each cut keeps the k best of all
// (TestSelectBest).
func selectBest(c []cand, k int) []cand {
	lo, hi := 0, len(c)-1
	for lo < hi {
		// Median of three as the pivot, moved to hi.
		mid := lo + (hi-lo)/2
		if better(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if better(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if better(c[mid], c[hi]) {
			c[mid], c[hi] = c[hi], c[mid]
		}
		p := c[hi]
		st := lo
		for j := lo; j < hi; j++ {
			if better(c[j], p) {
				c[j], c[st] = c[st], c[j]
				st++
			}
		}
		c[st], c[hi] = c[hi], c[st]
		switch {
		case st == k-1:
			lo = hi
		case st < k-1:
			lo = st + 1
		default:
			hi = st - 1
		}
	}
	// c[k-1] is in place; every one before it is better.
	return c[:k]
}

// query8 returns q's int8 codes (stride bytes) in the scratch buffer.
func (sc *scratch) query8(stride int, q []float32) []int8 {
	if cap(sc.q8) < stride {
		sc.q8 = make([]int8, stride)
	}
	q8 := sc.q8[:stride]
	encode8(q8, q)
	return q8
}

// push adds c to the bounded min-heap h of at most pool candidates.
func push(h []cand, pool int, c cand) []cand {
	if len(h) < pool {
		h = append(h, c)
		up(h, len(h)-1)
		return h
	}
	if c.s > h[0].s {
		h[0] = c
		down(h, 0)
	}
	return h
}

func up(h []cand, j int) {
	for j > 0 {
		p := (j - 1) / 2
		if h[p].s <= h[j].s {
			return
		}
		h[p], h[j] = h[j], h[p]
		j = p
	}
}

func down(h []cand, j int) {
	for {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].s < h[l].s {
			m = r
		}
		if h[j].s <= h[m].s {
			return
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
}

// exact scores the slots cand (nil: every slot keep accepts) with the exact
// cosine of vq and returns the top n, best first (ties by id); ctx's error
// when it ended (checked every cancelEvery slots: a widened filtered
// search scores up to every row).
func (x *vecIndex) exact(ctx context.Context, vq *vecQuery, n int, keep func(*entry) bool, cand []int) ([]scored, error) {
	top := make([]scored, 0, n+1)
	add := func(e *entry) {
		s := scored{e.doc.ID, vq.cos(e.vslot - 1), e}
		if math.IsNaN(s.score) || math.IsInf(s.score, 0) {
			return // a damaged vector still being verified (snapshot_verify.go)
		}
		if len(top) == n && cmpScored(s, top[n-1]) >= 0 {
			return
		}
		at, _ := slices.BinarySearchFunc(top, s, cmpScored)
		top = slices.Insert(top, at, s)
		if len(top) > n {
			top = top[:n]
		}
	}
	if cand == nil {
		for i, e := range x.ents {
			if err := ctxErrEvery(ctx, i); err != nil {
				return nil, err
			}
			if keep == nil || keep(e) {
				add(e)
			}
		}
		return top, nil
	}
	for k, i := range cand {
		if err := ctxErrEvery(ctx, k); err != nil {
			return nil, err
		}
		add(x.ents[i])
	}
	return top, nil
}

func cmpScored(a, b scored) int { return CompareScores(a.score, b.score, a.id, b.id) }

// CompareScores is the order of candidates on every backend: the higher
// score first, then the smaller message id, so that ties rank the same
// way everywhere. It returns -1 when (scoreA, idA) ranks first, 1 when
// (scoreB, idB) does, 0 when they are equal.
func CompareScores(scoreA, scoreB float64, idA, idB string) int {
	switch {
	case scoreA > scoreB:
		return -1
	case scoreA < scoreB:
		return 1
	case idA < idB:
		return -1
	case idA > idB:
		return 1
	}
	return 0
}
