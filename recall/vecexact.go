package recall

import "math"

// Integer rows (issue 14). A hash-384 vector (embed_hash.go) is a vector
// of half-integers a (the features' weights, 1 per word and 0.5 per
// trigram, summed per dimension) divided by its length: component j is
// float32(a_j / ‖a‖) with ‖a‖ = √(Σ a_j²) in float64. Such a row is held
// exactly by the integers k = 2a, |k_j| ≤ 127: its float32 values are a
// function of k alone (intValue). put stores k as the row's int8 codes
// instead of the 127-scaled ones when, and only when, that function gives
// back every one of the row's values bit for bit (intCodes verifies it;
// any other vector, a use-lite one or a long text's with a weight over
// 63.5, keeps the scaled codes); its scale is then −1/(2‖a‖), the sign
// marking the row as integer. The first pass (vecindex.go) uses |scale|
// as for any row; the codes are then the row's exact direction, so the
// pass is closer to the exact order than with rounded codes.
//
// The exact cosine of such a row (intCos) is then computed from its codes,
// in memory, without reading its float32 values: the same float32 sum,
// in the same order, of the same products, as cosineAt over the values
// (TestIntRowsExact). While the row's slab holds its snapshot's bytes,
// this replaces a pread of 1,536 bytes (vecfile.go) by a few dozen
// divisions: a LoadContext at 100k read several hundred rows that way.
// The codes of an integer row are stored in the snapshot like any
// others, the sign of its scale with them (snapshot_format.go).

// intMaxCode is the largest |k_j| an integer row may hold.
const intMaxCode = 127

// intCodes writes into dst (stride bytes) the integers k of v when v is an
// integer row (intValue(k, j) == v[j] for every j, |k_j| ≤ intMaxCode) and
// returns its scale 1/(2‖a‖) (k_j times it is v_j within float32
// rounding); false otherwise (dst is then to be overwritten).
//
// It looks for the smallest non-zero |k_j| (kmin = 1, 2, …): with
// t = kmin / min|v_j|, every v_j·t must round to an integer within 10⁻³;
// a dense vector fails at its first components, and at the first kmin
// once max|v|·t > 127.5. A candidate k is then checked exactly.
func intCodes(dst []int8, v []float32) (float32, bool) {
	var hi, lo float64
	for _, f := range v {
		a := math.Abs(float64(f))
		if a > hi {
			hi = a
		}
		if a > 0 && (lo == 0 || a < lo) {
			lo = a
		}
	}
	if hi == 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		return 0, false
	}
	for kmin := 1.0; hi*kmin/lo <= intMaxCode+0.5; kmin++ {
		t := kmin / lo
		ok := true
		for j, f := range v {
			y := float64(f) * t
			r := math.Round(y)
			if !(math.Abs(y-r) <= 1e-3) || math.Abs(r) > intMaxCode {
				ok = false
				break
			}
			dst[j] = int8(r)
		}
		if !ok {
			continue
		}
		clear(dst[len(v):])
		norm := intNorm(dst[:len(v)])
		if intMatches(dst[:len(v)], v, norm) {
			return float32(0.5 / norm), true
		}
	}
	return 0, false
}

// intNorm returns ‖a‖ = √(Σ (k_j/2)²) of the integer codes k, computed as
// hashVector computes it: the squares of half-integers and their sums
// (below 2⁵⁰) are exact in float64, so the sum is Σk_j²/4 exactly.
func intNorm(k []int8) float64 {
	var s int64
	for _, c := range k {
		s += int64(c) * int64(c)
	}
	return math.Sqrt(float64(s) * 0.25)
}

// intNorm is intNorm of the integer codes of a row (stride bytes), their
// sum of squares taken by dots8.
func (x *vecIndex) intNorm(code []int8) float64 {
	var sq [1]int32
	dots8(code, code, sq[:])
	return math.Sqrt(float64(sq[0]) * 0.25)
}

// intValue returns component j of the integer row of codes k and norm
// intNorm(k): float32(a_j / ‖a‖), a_j = k_j/2, as hashVector rounds it.
func intValue(k int8, norm float64) float32 {
	return float32(float64(k) * 0.5 / norm)
}

// intMatches reports whether every value of v is intValue of its code
// (0 for a zero code; a negative zero of v equals it).
func intMatches(k []int8, v []float32, norm float64) bool {
	if norm == 0 {
		return false
	}
	for j, f := range v {
		if intValue(k[j], norm) != f {
			return false
		}
	}
	return true
}

// isInt reports whether slot i is an integer row.
func (x *vecIndex) isInt(i int) bool { return x.scales[i] < 0 }

// scale returns slot i's scale for the first pass: a code times it is the
// row's value within the codes' rounding.
func (x *vecIndex) scale(i int) float32 { return abs32(x.scales[i]) }

// abs32 is |f| (the sign bit cleared).
func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// intCos returns the exact cosine of the query q (nz its non-zero
// components, nil: all) with integer slot i: cosineAt(q, v, nz) of its
// values v, computed from its codes. Components where the code is zero
// add ±0, which leaves the float32 sum unchanged (cosineAt), so they are
// skipped.
func (x *vecIndex) intCos(i int, q []float32, nz []int32) float64 {
	code := x.code(i)
	k, norm := code[:x.dims], x.intNorm(code)
	var s float32
	if nz == nil {
		for j, c := range k {
			if c != 0 {
				s += q[j] * intValue(c, norm)
			}
		}
		return float64(s)
	}
	for _, j := range nz {
		if c := k[j]; c != 0 {
			s += q[j] * intValue(c, norm)
		}
	}
	return float64(s)
}

// intRow writes integer slot i's float32 values into buf (dims long).
func (x *vecIndex) intRow(i int, buf []float32) []float32 {
	code := x.code(i)
	k, norm := code[:x.dims], x.intNorm(code)
	for j, c := range k {
		if c == 0 {
			buf[j] = 0
		} else {
			buf[j] = intValue(c, norm)
		}
	}
	return buf
}

// encodeRow writes v's codes into dst (stride bytes) and returns its scale:
// the integers of an integer row and −its scale (intCodes), else the
// 127-scaled codes and their scale (encode8).
func encodeRow(dst []int8, v []float32) float32 {
	if s, ok := intCodes(dst, v); ok {
		return -s
	}
	return encode8(dst, v)
}

// vecQuery is one query's exact cosines with the rows of a vector index,
// for the search that holds its shard's lock for reading (one goroutine).
// A row is scored from its float32 values where they are in memory; in a
// slab that holds its snapshot file's bytes, an integer row from its codes
// (intCos) and any other row by reading its values (rowVec), at most once
// per query (memo: the re-score, the context rule and the fusion ask for
// the same rows).
type vecQuery struct {
	x    *vecIndex
	q    []float32
	nz   []int32   // q's non-zero components (nonZeros)
	qz   []float64 // q's values at nz (all of them when nz is nil)
	l1   float64   // ‖q‖₁
	buf  []float32
	buf2 []float32 // pairCos's second row
	memo map[int32]float64
	// keepFirst has searchQuery's first pass leave its scratch here
	// (first, held until release) instead of giving it back: the bounds
	// of the neighbours the search scores after it are then taken from
	// the first pass's dots (firstBound). Set by the search that releases.
	keepFirst bool
	first     *firstPass
}

// firstPass is what a first pass over every row of an index leaves for its
// query: the codes' dot of each row with the query's codes (dots, by slot),
// the query codes' scale and residual (queryResidual), and the scratch
// holding the dots.
type firstPass struct {
	dots    []int32
	qs, el2 float64
	sc      *scratch
}

// keep attaches the first pass of sc (dots of every row of x for vq.q,
// query codes' scale qs and residual el2) to vq, giving back the one it
// held (a widened search runs the pass again); false when vq does not keep
// them (keepFirst), sc then to be given back by the caller.
func (vq *vecQuery) keep(sc *scratch, qs, el2 float64) bool {
	if !vq.keepFirst {
		return false
	}
	vq.release()
	vq.first = &firstPass{dots: sc.dots[:len(vq.x.ents)], qs: qs, el2: el2, sc: sc}
	return true
}

// release gives back the first pass's scratch kept by keep, if any.
func (vq *vecQuery) release() {
	if vq == nil || vq.first == nil {
		return
	}
	vq.x.giveScratch(vq.first.sc)
	vq.first = nil
}

// firstBound returns the first pass's bound of integer slot i (intBound of
// its score), false when vq keeps no first pass or slot i is no integer
// row.
func (vq *vecQuery) firstBound(i int) (float64, bool) {
	f := vq.first
	if f == nil || i >= len(f.dots) || !vq.x.isInt(i) {
		return 0, false
	}
	return intBound(f.qs, float32(f.dots[i])*vq.x.scale(i), f.el2), true
}

// query returns the scorer of q (dims values) over x.
func (x *vecIndex) query(q []float32) *vecQuery {
	vq := &vecQuery{x: x, q: q, nz: nonZeros(q), buf: make([]float32, x.dims)}
	for _, f := range q {
		vq.l1 += math.Abs(float64(f))
	}
	if vq.nz == nil {
		vq.qz = make([]float64, len(q))
		for j, f := range q {
			vq.qz[j] = float64(f)
		}
		return vq
	}
	vq.qz = make([]float64, len(vq.nz))
	for t, j := range vq.nz {
		vq.qz[t] = float64(q[j])
	}
	return vq
}

// cos returns the exact cosine of the query with slot i (cosineAt of its
// values; 0 for a row found damaged, rowVec).
func (vq *vecQuery) cos(i int) float64 {
	x := vq.x
	if x.chunks[i/chunkRows].file == nil {
		return cosineAt(vq.q, x.vec(i), vq.nz)
	}
	if x.isInt(i) {
		return x.intCos(i, vq.q, vq.nz)
	}
	if s, ok := vq.memo[int32(i)]; ok {
		return s
	}
	s := cosineAt(vq.q, x.rowVec(i, vq.buf), vq.nz)
	if vq.memo == nil {
		vq.memo = make(map[int32]float64, 64)
	}
	vq.memo[int32(i)] = s
	return s
}

// cheap reports whether cos(i) costs no more than its bound: the row's
// values are in memory, or were read already. An integer row of a file's
// slab is not: its bound (vecIndex.upper) is within 10⁻⁴ of its cosine
// and costs no division.
func (vq *vecQuery) cheap(i int) bool {
	if vq.x.chunks[i/chunkRows].file == nil {
		return true
	}
	_, ok := vq.memo[int32(i)]
	return ok
}

// bound returns an upper bound of cos(i): cos(i) itself when that is
// cheap, else the first pass's bound of an integer row when the search
// kept it (firstBound: two loads, where the codes' bound reads the row
// from a random place of the codes), else the codes' bound
// (vecIndex.upper).
func (vq *vecQuery) bound(i int) float64 {
	if vq.cheap(i) {
		return vq.cos(i)
	}
	if b, ok := vq.firstBound(i); ok {
		return b
	}
	return vq.upper(i)
}

// pairCos returns the cosine of slots i and j (cosine of their values, as
// the exchange rule takes it): from the codes of two integer rows of slabs
// that hold a file's bytes (only the components where both codes are
// non-zero add anything but ±0), else from their values.
func (vq *vecQuery) pairCos(i, j int) float64 {
	x := vq.x
	if x.chunks[i/chunkRows].file != nil && x.chunks[j/chunkRows].file != nil && x.isInt(i) && x.isInt(j) {
		ki, kj := x.code(i), x.code(j)
		ni, nj := x.intNorm(ki), x.intNorm(kj)
		var s float32
		for d, a := range ki[:x.dims] {
			if b := kj[d]; a != 0 && b != 0 {
				s += intValue(a, ni) * intValue(b, nj)
			}
		}
		return float64(s)
	}
	if vq.buf2 == nil {
		vq.buf2 = make([]float32, x.dims)
	}
	return cosine(x.rowVec(i, vq.buf), x.rowVec(j, vq.buf2))
}
