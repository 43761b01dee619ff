package recall

import (
	"math"
	"slices"
)

// The exact re-score of the pool (issue 14). Scoring a candidate exactly
// reads its float32 row (1,536 bytes at 384 dimensions) from a random
// place in 150 MB at 100k rows (from the snapshot file, with pread, while
// its slab is clean: vecfile.go): a few hundred cache and TLB misses or
// system calls a query, which profiles of LoadContext at 100k showed as
// the largest cost left in the vector channel once the column pass made
// the first pass cheap. Most of the pool cannot reach the top n, and the codes say so
// with a proof: with q = s_q·q8 + f and v = s_v·c + e (the codes' rounding,
// |f_j| ≤ s_q/2 and |e_j| ≤ s_v/2), over the k dimensions where q is not
// zero (elsewhere every term is 0),
//
//	|q·v − s_q·s_v·(q8·c)| ≤ Σ|f_j||v_j| + Σ|q_j||e_j| + Σ|f_j||e_j|
//	                       ≤ s_q/2·√k + s_v/2·‖q‖₁ + k·s_q·s_v/4
//
// (Σ_j|v_j| ≤ √k for a unit v, Cauchy–Schwarz). rescore takes the pool by
// code score, best first, and skips a candidate whose code score plus that
// bound (and a margin far above float32 rounding) is below the n-th exact
// score found so far: its exact score could not enter the top n. The top
// n, their scores and their order are those of re-scoring the whole pool
// (TestVecRescorePrunes); on the synthetic corpus at 100k, about two
// thirds of the pool of a hash-384 query is skipped.

// boundMargin covers what the bound leaves out: float32 rounding of the
// code scores, of the scales (a code is within 0.5 + 2⁻¹⁵ of v_j/s_v, not
// 0.5) and of the exact sums, all below 1e-5 for unit vectors.
const boundMargin = 1e-4

// codeBound is the part of the bound that depends on the query alone.
type codeBound struct {
	sq   float64 // s_q: the query's scale, max|q_j|/127
	a, b float64 // the bound is a + b·s_v: a = s_q/2·√k, b = ‖q‖₁/2 + k·s_q/4
}

// boundOf returns q's codeBound.
func boundOf(q []float32) codeBound {
	var m float32
	k, l1 := 0, 0.0
	for _, f := range q {
		if f != 0 {
			k++
			l1 += math.Abs(float64(f))
			m = max(m, f, -f)
		}
	}
	sq := float64(m) / 127
	// 0.51, not 0.5: the rounding of the codes is within 0.5 of the
	// scaled value plus float32 error (boundMargin).
	return codeBound{sq: sq, a: 0.51 * sq * math.Sqrt(float64(k)), b: 0.51*l1 + 0.26*float64(k)*sq}
}

// upper returns the largest exact cosine a row of scale sv and code score
// s (the dot of the codes times sv) can have.
func (cb codeBound) upper(s, sv float32) float64 {
	return float64(s)*cb.sq + cb.a + cb.b*float64(sv) + boundMargin
}

// rescore returns the exact top n of the pool (candidates with their code
// scores), best first (ties by id): the pool by code score, each scored
// exactly unless its bound cannot reach the n-th score.
func (x *vecIndex) rescore(q []float32, n int, pool []cand) []scored {
	slices.SortFunc(pool, func(a, b cand) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return int(a.i - b.i)
	})
	cb := boundOf(q)
	nz := nonZeros(q)
	top := make([]scored, 0, n+1)
	buf := make([]float32, x.dims)
	for _, c := range pool {
		if len(top) == n && cb.upper(c.s, x.scales[c.i]) < top[n-1].score {
			continue
		}
		e := x.ents[c.i]
		s := scored{e.doc.ID, cosineAt(q, x.rowVec(int(c.i), buf), nz)}
		if math.IsNaN(s.score) || math.IsInf(s.score, 0) {
			continue // a damaged vector still being verified (snapshot_verify.go)
		}
		if len(top) == n && cmpScored(s, top[n-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, s, cmpScored)
		top = slices.Insert(top, at, s)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}
