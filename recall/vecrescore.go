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
// the first pass cheap. Most of the pool cannot reach the top n, and the
// row's int8 codes (384 bytes, in memory) say so with a proof: with
// v = s_v·c + e (the codes' rounding, |e_j| ≤ s_v/2), the exact cosine
//
//	q·v = s_v·(q·c) + q·e,  |q·e| ≤ s_v/2·‖q‖₁
//
// (only the dimensions where q is not zero count: a sparse query's 20–60
// of 384). rescore computes s_v·(q·c) of each pool member with the
// query's float32 values, takes the pool by its upper bound s_v·(q·c +
// ‖q‖₁/2), best first, and stops at the first whose bound is below the
// n-th exact score found so far: neither it nor any after it could enter
// the top n. The top n, their scores and their order are those of
// re-scoring the whole pool (TestVecRescorePrunes); on the synthetic
// corpus at 100k most of the pool of a hash-384 query is never read. The
// scores come from the query's vecQuery (vecexact.go): rows in memory
// are scored exactly at once (no cheaper bound), an integer row's bound
// is within 10⁻⁴ of its cosine, and a row is read at most once a query.

// boundMargin covers what the bound leaves out: float32 rounding of the
// scales (a code is within 0.5 + 2⁻¹⁵ of v_j/s_v, not 0.5: the factor
// 0.51) and of the exact sums, all below 1e-5 for unit vectors.
const boundMargin = 1e-4

// bounded is a pool member and the largest exact cosine it can have.
type bounded struct {
	ub    float64
	i     int32
	exact bool // ub is the exact cosine
}

// upper returns the largest exact cosine slot i can have for the query
// (nz its non-zero dimensions, nil: all; l1 = ‖q‖₁): its codes' dot with
// q's values, plus the codes' rounding bound, times its scale. The codes
// of an integer row (vecexact.go) are its exact direction: no rounding
// bound, only boundMargin (the float32 roundings of its values, scale and
// sums).
func (vq *vecQuery) upper(i int) float64 {
	x := vq.x
	code := x.code(i)
	// Four sums: their order changes the float64 rounding only, far
	// inside boundMargin.
	var d0, d1, d2, d3 float64
	qz, t := vq.qz, 0
	if vq.nz == nil {
		code = code[:len(qz)]
		for ; t+4 <= len(qz); t += 4 {
			d0 += qz[t] * float64(code[t])
			d1 += qz[t+1] * float64(code[t+1])
			d2 += qz[t+2] * float64(code[t+2])
			d3 += qz[t+3] * float64(code[t+3])
		}
		for ; t < len(qz); t++ {
			d0 += qz[t] * float64(code[t])
		}
	} else {
		nz := vq.nz[:len(qz)]
		for ; t+4 <= len(nz); t += 4 {
			d0 += qz[t] * float64(code[nz[t]])
			d1 += qz[t+1] * float64(code[nz[t+1]])
			d2 += qz[t+2] * float64(code[nz[t+2]])
			d3 += qz[t+3] * float64(code[nz[t+3]])
		}
		for ; t < len(nz); t++ {
			d0 += qz[t] * float64(code[nz[t]])
		}
	}
	d := (d0 + d1) + (d2 + d3)
	if x.isInt(i) {
		return d*float64(x.scale(i)) + boundMargin
	}
	return (d+0.51*vq.l1)*float64(x.scale(i)) + boundMargin
}

// rescore returns the exact top n of the pool for vq, best first (ties by
// id): the pool by upper bound (an integer row's from its first pass
// score, intBound; else vecQuery.bound: the exact cosine itself where it
// costs no read), each scored exactly until the bound cannot reach the
// n-th score. The pool is candidates' (or subCandidates') for vq.q: its
// scores are the codes' dots with the query's codes times the rows'
// scales. sc holds the bounds' buffer.
func (x *vecIndex) rescore(sc *scratch, vq *vecQuery, n int, pool []cand) []scored {
	if cap(sc.bs) < len(pool) {
		sc.bs = make([]bounded, len(pool))
	}
	bs := sc.bs[:len(pool)]
	qs, el2 := queryResidual(vq.q, sc.query8(x.stride, vq.q))
	for k, c := range pool {
		i := int(c.i)
		if x.isInt(i) {
			bs[k] = bounded{intBound(qs, c.s, el2), c.i, false}
			continue
		}
		if vq.cheap(i) {
			bs[k] = bounded{vq.cos(i), c.i, true}
			if math.IsNaN(bs[k].ub) {
				bs[k].ub = math.Inf(1) // dropped below, where it is scored
			}
		} else {
			bs[k] = bounded{vq.upper(i), c.i, false}
		}
	}
	slices.SortFunc(bs, func(a, b bounded) int {
		switch {
		case a.ub > b.ub:
			return -1
		case a.ub < b.ub:
			return 1
		}
		return int(a.i - b.i)
	})
	sc.touched = touchRows(x, bs[:min(len(bs), n+n/2)])
	top := make([]scored, 0, n+1)
	for _, b := range bs {
		if len(top) == n && b.ub < top[n-1].score {
			break // the bounds after it are lower still
		}
		e := x.ents[b.i]
		s := scored{e.doc.ID, b.ub, e}
		if !b.exact || math.IsInf(b.ub, 1) {
			s.score = vq.cos(int(b.i))
		}
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

// An integer row's bound without reading it (issue 14). vecQuery.upper
// reads the pool member's codes, 440 rows a LoadContext at 100k messages
// from random places of 38 MB (a TLB miss, cache misses, and a page fault
// while the snapshot's mapping is new): 0.3 ms a call, twice that in the
// calls right after the first use (BENCHMARKS.md, helper "flat5"). The
// first pass already has what bounds an integer row: its score s is the
// dot of the row's codes k with the query's codes q8 times the row's
// scale s_v, and with qs the query codes' scale and e = q − qs·q8 their
// rounding (one vector a query),
//
//	q·v = s_v·(qs·(q8·k) + e·k),  |e·k| ≤ ‖e‖₂·‖k‖₂,
//
// where s_v·‖k‖₂ = 1: an integer row is its codes over their length
// (vecexact.go). So q·v ≤ qs·s + ‖e‖₂, which rescore takes as the row's
// bound: only the rows whose bound reaches the n-th exact score found so
// far are read (and scored exactly). The relative 10⁻⁶ covers the float32
// roundings of s and of s_v, boundMargin those of the exact sums.

// queryResidual returns the scale qs of the query codes q8 (encode8 of q)
// and ‖q − qs·q8‖₂.
func queryResidual(q []float32, q8 []int8) (qs, el2 float64) {
	var m float32
	for _, f := range q {
		m = max(m, f, -f)
	}
	qs = float64(m / 127) // encode8's scale, as it computes it
	for j, f := range q {
		e := float64(f) - qs*float64(q8[j])
		el2 += e * e
	}
	return qs, math.Sqrt(el2)
}

// intBound returns an upper bound of the exact cosine of an integer row
// whose first pass score is s, for a query of codes' scale qs and residual
// el2 (queryResidual).
func intBound(qs float64, s float32, el2 float64) float64 {
	b := qs * float64(s)
	return b + math.Abs(b)*1e-6 + el2*(1+1e-6) + boundMargin
}

// The neighbours' scores (addNeighbours, similarity) read the float32 rows
// of up to three turns per neighbour of a ranked turn: several hundred a
// query. The vector channel keeps only its first q.pool candidates, so a
// neighbour whose similarity cannot reach the pool-th score already
// listed (which adding more can only raise) is cut whatever its exact
// score: similarityBound bounds it from the codes, as rescore does, and
// such a neighbour is not scored (TestNeighbourBoundSameList). Likewise
// similarity skips a context turn whose bound times ContextWeight cannot
// pass the turn's own cosine, and exchange a question whose bound cannot
// pass the score it would lift.

// neighbourBound turns the neighbours' bound on (tests turn it off to
// compare).
var neighbourBound = true

// similarityBound returns an upper bound of ix.similarity(s, e, vq) for an
// entry of s (caller holds s.mu), −Inf when neither e nor its context
// turns have a vector; nil when s has no vector index.
func (ix *Index) similarityBound(s *shard, vq *vecQuery) func(*entry) float64 {
	if vq == nil || s.vx.len() == 0 {
		return nil
	}
	upper := func(e *entry) float64 {
		if e == nil || e.vslot == 0 {
			return math.Inf(-1)
		}
		return vq.bound(e.vslot - 1)
	}
	alpha := ix.cfg.Tuning.ContextWeight
	return func(e *entry) float64 {
		ub := upper(e)
		prev, next := ix.contextOf(s, e)
		for _, n := range []*entry{prev, next} {
			if nu := upper(n); nu > 0 {
				ub = max(ub, alpha*nu)
			}
		}
		if ix.answers(s, e) {
			// The exchange score is at most the question's cosine.
			if pu := upper(e.prev); pu > 0 {
				ub = max(ub, pu)
			}
		}
		return ub
	}
}

// poolFloor returns the pool-th best score of out, −Inf when out has
// fewer.
func poolFloor(out []scored, pool int) float64 {
	if pool <= 0 || len(out) < pool {
		return math.Inf(-1)
	}
	s := make([]float64, len(out))
	for i, c := range out {
		s[i] = c.score
	}
	slices.Sort(s)
	return s[len(s)-pool]
}

// touchRows reads, for each pool member of bs, its entry (the word
// holding its id's length) and, for an integer row to be scored exactly
// (not exact already), one byte of each cache line of its code row, and
// returns their XOR, which the caller keeps so that the reads are not
// dropped. The re-score's loop reads them member after member, in bound
// order: at 100k rows each is a miss to memory (entries over ~20 MB,
// codes over 38 MB), ~200 of each a search, and the loop's next member
// waits for the last one's. These reads are independent of each other, so
// the processor keeps many in flight, and the loop then finds them in the
// cache. A profile of 9,900 hybrid searches over a snapshot-loaded 100k/1
// shard: rescore 0.12 → 0.06 ms a search (the code rows touched alone
// changed nothing: the entry was the wait). A member read here and not
// scored costs only its reads; an entry not made (nil) is not read.
func touchRows(x *vecIndex, bs []bounded) int8 {
	var t int8
	for _, b := range bs {
		if e := x.ents[b.i]; e != nil {
			t ^= int8(len(e.doc.ID))
		}
		if b.exact || !x.isInt(int(b.i)) {
			continue
		}
		code := x.code(int(b.i))
		for off := 0; off < len(code); off += 64 {
			t ^= code[off]
		}
	}
	return t
}
