package recall

import (
	"context"
	"math/bits"
)

// The sign pass (issue 14): in front of the int8 scan of a large shard of
// dense vectors, each row also keeps one bit per dimension, set when the
// dimension is positive (48 bytes at 384 dimensions, in the row's slab
// after its float32 values). A query counts the differing bits of every
// allowed row (math/bits.OnesCount64 over uint64 words: an eighth of the
// int8 codes' bytes), keeps the max(signFactor × n, minSignPool) nearest
// (pre-filtering: a row the filter removes never takes a place), and only
// those go on to the int8 pass and the exact re-score.
//
// Signs keep the angle of a dense vector (use-lite's) but not of a sparse
// one: hash-384 vectors are mostly zeros, their sign rows mostly alike,
// and at 100k of them the 8,000 nearest by signs held only 70 % of the
// exact top 10 (BENCHMARKS.md). The pass therefore runs only when at most
// one component in maxZeroShare of the index is exactly zero, and when
// the index has at least signRows rows; otherwise the int8 scan covers
// every row as before. The sign rows are derived from the float32 values:
// all of them the first time the index is large and dense enough (in put,
// or at a snapshot's load), then in every put; an index of sparse vectors
// never pays for them. A snapshot keeps them with the rest of the chunks
// (snapshot_format.go).
const (
	signRows     = 16384
	signFactor   = 32
	minSignPool  = 4096
	maxZeroShare = 20
	// noRow marks a filtered-out row's distance.
	noRow = 0xFFFF
)

// signs returns slot i's sign row (words values).
func (x *vecIndex) signs(i int) []uint64 {
	off := chunkRows*(x.stride+4*x.dims) + i%chunkRows*8*x.words
	return x.chunks[i/chunkRows].uint64s(off, x.words)
}

// encodeSigns derives slot i's sign row from its float32 values and
// returns the number of its components equal to zero.
func (x *vecIndex) encodeSigns(i int) int {
	return signsOf(x.signs(i), x.vec(i))
}

// signsOf writes v's sign bits into dst (bit j set when v[j] > 0) and
// returns the number of zero components of v.
func signsOf(dst []uint64, v []float32) int {
	clear(dst)
	zeros := 0
	for j, f := range v {
		switch {
		case f > 0:
			dst[j/64] |= 1 << (j % 64)
		case f == 0:
			zeros++
		}
	}
	return zeros
}

// zeroCount returns the number of components of v equal to zero.
func zeroCount(v []float32) int {
	n := 0
	for _, f := range v {
		if f == 0 {
			n++
		}
	}
	return n
}

// dense reports whether the index is large enough for the sign pass and
// its vectors dense enough.
func (x *vecIndex) dense() bool {
	rows := len(x.ents)
	return rows >= signRows && x.zeros*maxZeroShare <= rows*x.dims
}

// maybeSign derives every row's signs the first time the index is dense
// (put keeps them from then on, whatever is added).
func (x *vecIndex) maybeSign() {
	if x.signed || !x.dense() {
		return
	}
	for _, c := range x.chunks {
		c.touch()
	}
	for i := range x.ents {
		x.encodeSigns(i)
	}
	x.signed = true
}

// signsPay reports whether the sign pass runs for a query of n results.
func (x *vecIndex) signsPay(n int) bool {
	return x.signed && x.dense() && len(x.ents) >= 4*max(signFactor*n, minSignPool)
}

// signCandidates returns the pool rows nearest q by their signs among
// those keep accepts (nil: all); all the accepted rows when they are
// fewer. Ties at the last distance go to the lower slots. It returns
// ctx's error when ctx ended (distances checks it).
func (x *vecIndex) signCandidates(ctx context.Context, sc *scratch, q []float32, pool int, keep func(*entry) bool) ([]int32, error) {
	ham, err := x.distances(ctx, sc, q)
	if err != nil {
		return nil, err
	}
	hist := make([]int, x.dims+2)
	for i, d := range ham {
		if keep != nil && !keep(x.ents[i]) {
			ham[i] = noRow
			continue
		}
		hist[d]++
	}
	// hi is the first distance where the count reaches pool; quota is
	// how many of the rows at hi still fit.
	hi, below := 0, 0
	for ; hi <= x.dims && below+hist[hi] < pool; hi++ {
		below += hist[hi]
	}
	quota := pool - below
	sub := sc.sub[:0]
	for i, d := range ham {
		switch {
		case int(d) < hi:
			sub = append(sub, int32(i))
		case int(d) == hi && quota > 0:
			sub = append(sub, int32(i))
			quota--
		}
	}
	sc.sub = sub
	return sub, nil
}

// distances returns the Hamming distance of q's signs to every row's, in
// the scratch buffer; ctx's error when it ended (checked every
// cancelEvery rows).
func (x *vecIndex) distances(ctx context.Context, sc *scratch, q []float32) ([]uint16, error) {
	if cap(sc.qs) < x.words {
		sc.qs = make([]uint64, x.words)
	}
	qs := sc.qs[:x.words]
	signsOf(qs, q)
	rows := len(x.ents)
	if cap(sc.ham) < rows {
		sc.ham = make([]uint16, rows)
	}
	ham := sc.ham[:rows]
	for c := range x.chunks {
		lo := c * chunkRows
		if err := ctxErrEvery(ctx, lo); err != nil {
			return nil, err
		}
		hi := min(lo+chunkRows, rows)
		off := chunkRows * (x.stride + 4*x.dims)
		hamming(qs, x.chunks[c].uint64s(off, (hi-lo)*x.words), ham[lo:hi])
	}
	return ham, nil
}

// hamming sets out[r] to the number of bits differing between q and row r
// of rows (len(q) words each).
func hamming(q, rows []uint64, out []uint16) {
	w := len(q)
	if w == 6 { // 384 dimensions: unrolled
		q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
		for r := range out {
			row := rows[r*6 : r*6+6 : r*6+6]
			out[r] = uint16(bits.OnesCount64(q0^row[0]) + bits.OnesCount64(q1^row[1]) +
				bits.OnesCount64(q2^row[2]) + bits.OnesCount64(q3^row[3]) +
				bits.OnesCount64(q4^row[4]) + bits.OnesCount64(q5^row[5]))
		}
		return
	}
	for r := range out {
		row := rows[r*w : r*w+w]
		d := 0
		for j, v := range row {
			d += bits.OnesCount64(q[j] ^ v)
		}
		out[r] = uint16(d)
	}
}

// subCandidates returns the slots of the pool best rows of sub by their
// int8 codes.
func (x *vecIndex) subCandidates(sc *scratch, q []float32, pool int, sub []int32) []cand {
	q8 := sc.query8(x.stride, q)
	if cap(sc.dots) < 1 {
		sc.dots = make([]int32, 1)
	}
	dot := sc.dots[:1]
	h := make([]cand, 0, pool)
	for _, i := range sub {
		dots8(q8, x.code(int(i)), dot)
		h = push(h, pool, cand{float32(dot[0]) * x.scale(int(i)), i})
	}
	return h
}
