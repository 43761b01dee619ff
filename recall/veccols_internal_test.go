package recall

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestColDots8: the column kernel (AVX2 where the CPU has it) and its
// pure-Go fallback equal the plain sum Σ q[j]·cols[j·chunkRows+r] for
// queries of 1 to every column, odd and even counts, extreme codes.
func TestColDots8(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 8))
	const dims = HashDims
	cols := make([]int8, dims*chunkRows)
	for i := range cols {
		cols[i] = int8(r.IntN(255) - 127)
	}
	for i := range chunkRows {
		cols[5*chunkRows+i] = 127 // extreme column
		cols[6*chunkRows+i] = -127
	}
	for _, nnz := range []int{1, 2, 3, 17, 45, 64, 159, 160, dims} {
		q8 := make([]int8, (dims+31)/32*32)
		for _, j := range r.Perm(dims)[:nnz] {
			q8[j] = int8(r.IntN(255) - 127)
			if q8[j] == 0 {
				q8[j] = 1
			}
		}
		if nnz >= 17 {
			q8[5], q8[6] = 127, -127
			nnz = 0
			for _, c := range q8 {
				if c != 0 {
					nnz++
				}
			}
		}
		want := make([]int32, chunkRows)
		for rr := range want {
			for j := range dims {
				want[rr] += int32(q8[j]) * int32(cols[j*chunkRows+rr])
			}
		}
		cq := &colQuery{}
		if sparse := cq.sparse(q8, dims); sparse != (nnz <= colMaxNonZero) {
			t.Fatalf("nnz %d: sparse %v", nnz, sparse)
		}
		if nnz > colMaxNonZero {
			fillPairs(cq, q8, dims) // every column, past the threshold
		}
		for _, rows := range []int{32, 64, chunkRows} {
			got, gotGo := make([]int32, rows), make([]int32, rows)
			colDots8(cols, cq, got)
			colDots8Go(cols, cq, gotGo)
			if !slices.Equal(got, want[:rows]) || !slices.Equal(gotGo, want[:rows]) {
				t.Fatalf("nnz %d, %d rows: kernel %v…, Go %v…, want %v…", nnz, rows, got[:4], gotGo[:4], want[:4])
			}
		}
	}
}

// fillPairs fills cq with every non-zero column of q8 (sparse without the
// threshold).
func fillPairs(cq *colQuery, q8 []int8, dims int) {
	var nz []int
	for j, c := range q8[:dims] {
		if c != 0 {
			nz = append(nz, j)
		}
	}
	for k := 0; k < len(nz); k += 2 {
		a, wb, b := nz[k], int32(0), 0
		if k+1 < len(nz) {
			b = nz[k+1]
			wb = int32(q8[b])
		}
		cq.offs = append(cq.offs, a*chunkRows, b*chunkRows)
		cq.w = append(cq.w, int32(uint16(int16(q8[a])))|wb<<16)
	}
}

// hashCorpus returns n texts of 5 to 40 words drawn from a vocabulary of
// vocab words, and a query maker of 2 to 8 words.
func hashCorpus(r *rand.Rand, n, vocab int) ([]string, func() string) {
	words := make([]string, vocab)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx%c%c", i, 'a'+i%26, 'a'+i/26%26)
	}
	text := func(lo, hi int) string {
		k := lo + r.IntN(hi-lo+1)
		ws := make([]string, k)
		for i := range ws {
			// Zipf-like: low ids are frequent.
			ws[i] = words[int(float64(vocab)*r.Float64()*r.Float64())]
		}
		return strings.Join(ws, " ")
	}
	docs := make([]string, n)
	for i := range docs {
		docs[i] = text(5, 40)
	}
	return docs, func() string { return text(2, 8) }
}

// checkCols fails unless every built column block is the transposition
// of its slab's codes, with zeros in the rows past the index's end (no
// byte of a removed vector left).
func checkCols(t *testing.T, x *vecIndex) {
	t.Helper()
	if len(x.cols) != len(x.chunks) {
		t.Fatalf("%d column blocks for %d slabs", len(x.cols), len(x.chunks))
	}
	for c := range x.chunks {
		cols := x.colsOf(c)
		if cols == nil {
			continue
		}
		for r := range chunkRows {
			i := c*chunkRows + r
			for j := range x.dims {
				want := int8(0)
				if i < x.len() {
					want = x.code(i)[j]
				}
				if got := cols[j*chunkRows+r]; got != want {
					t.Fatalf("slab %d row %d column %d: %d, codes say %d", c, r, j, got, want)
				}
			}
		}
	}
}

// TestVecColsSameAsRows is the property test of the column pass: on random
// hash-384 corpora (sparse vectors of random word texts), with rows added
// and removed after the columns were built and filters keeping from all
// to a few rows, every query's results by columns are identical (ids and
// cosines) to the row scan's, the column blocks stay the transposition of
// the codes, and against the exhaustive exact cosine top 10 of the allowed
// rows the index keeps recall@10 ≥ 0.99.
func TestVecColsSameAsRows(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		r := rand.New(rand.NewPCG(14, seed))
		docs, query := hashCorpus(r, 3*chunkRows+300, 3000)
		x := newVecIndex(HashDims)
		var ents []*entry
		add := func(text string) {
			e := &entry{doc: Doc{ID: fmt.Sprintf("m%05d", len(ents))}, ord: len(ents)}
			x.put(e, HashVector(text))
			ents = append(ents, e)
		}
		for _, d := range docs[:2*chunkRows+100] {
			add(d)
		}
		found, want, colQueries := 0, 0, 0
		for round := range 6 {
			for qi := range 25 {
				q := normalised(HashVector(query()))
				keep := colsFilter(qi, r)
				for range 1 + colBuildChunks {
					sameAsRows(t, x, q, keep) // builds the columns
				}
				got := sameAsRows(t, x, q, keep)
				exact, _ := x.exact(context.Background(), x.query(q), 10, keep, nil)
				f, w := overlap(got, exact)
				found, want = found+f, want+w
				colQueries++
			}
			checkCols(t, x)
			if x.colsBuilt.Load() == 0 {
				t.Fatalf("seed %d round %d: no column block built", seed, round)
			}
			// Change the index behind the built columns: removals
			// (rows move down, slabs empty), then appends.
			for range 150 {
				x.remove(ents[r.IntN(len(ents))])
			}
			checkCols(t, x)
			for _, d := range docs[2*chunkRows+100+round*30 : 2*chunkRows+100+(round+1)*30] {
				add(d)
			}
			checkCols(t, x)
		}
		rec := float64(found) / float64(want)
		t.Logf("seed %d: %d queries, recall@10 %.4f against the exact scan", seed, colQueries, rec)
		if rec < 0.99 {
			t.Errorf("seed %d: recall@10 %.4f < 0.99", seed, rec)
		}
		x.free()
	}
}

// colsFilter returns query qi's filter: none, every other row, a random
// seventh, or a few rows.
func colsFilter(qi int, r *rand.Rand) func(*entry) bool {
	switch qi % 4 {
	case 1:
		return func(e *entry) bool { return e.ord%2 == 0 }
	case 2:
		m := r.IntN(7)
		return func(e *entry) bool { return e.ord%7 == m }
	case 3:
		m := r.IntN(500)
		return func(e *entry) bool { return e.ord%500 == m }
	}
	return nil
}

// sameAsRows searches q by columns and by rows, fails unless both agree,
// and returns the result.
func sameAsRows(t *testing.T, x *vecIndex, q []float32, keep func(*entry) bool) []scored {
	t.Helper()
	got := x.search(q, 10, keep)
	colPass = colsOff
	rows := x.search(q, 10, keep)
	colPass = colsAuto
	if !slices.Equal(got, rows) {
		t.Fatalf("by columns %v, by rows %v", got, rows)
	}
	return got
}

// overlap returns how many of exact's ids got holds, and len(exact).
func overlap(got, exact []scored) (int, int) {
	in := map[string]bool{}
	for _, s := range got {
		in[s.id] = true
	}
	n := 0
	for _, s := range exact {
		if in[s.id] {
			n++
		}
	}
	return n, len(exact)
}

// TestVecColsErase: removing a vector after its slab's columns were built
// leaves none of its codes in the column copy (the last row, moved into
// its place, is zeroed behind it), and a slab left empty frees its column
// block too.
func TestVecColsErase(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 9))
	docs, query := hashCorpus(r, 2*chunkRows+2, 500)
	x := newVecIndex(HashDims)
	var ents []*entry
	for i, d := range docs {
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}
		x.put(e, HashVector(d))
		ents = append(ents, e)
	}
	for range len(x.chunks) {
		x.search(normalised(HashVector(query())), 10, nil)
	}
	if x.colsBuilt.Load() != 3 {
		t.Fatalf("%d of 3 column blocks built", x.colsBuilt.Load())
	}
	last, gone := ents[len(ents)-1], ents[700]
	lastSlot := last.vslot - 1
	x.remove(gone) // the last row moves into slot 700
	cols := x.colsOf(0)
	for j := range x.dims {
		if got, want := cols[j*chunkRows+700], x.code(700)[j]; got != want {
			t.Fatalf("slot 700 column %d: %d, the moved row's code %d", j, got, want)
		}
	}
	cols = x.colsOf(lastSlot / chunkRows)
	for j := range x.dims {
		if c := cols[j*chunkRows+lastSlot%chunkRows]; c != 0 {
			t.Fatalf("vacated slot %d column %d: %d, want 0", lastSlot, j, c)
		}
	}
	third := x.cols[2]
	x.remove(ents[len(ents)-2]) // empties the third slab
	if len(x.cols) != 2 || x.colsBuilt.Load() != 2 || third.mem.mem != nil {
		t.Fatalf("%d column blocks (%d built), the emptied one freed: %v", len(x.cols), x.colsBuilt.Load(), third.mem.mem == nil)
	}
	checkCols(t, x)
	x.free()
	if x.colsBuilt.Load() != 0 || len(x.cols) != 0 {
		t.Fatal("free left column blocks")
	}
}

// TestCosineAt: the cosine summed over the query's non-zero components
// equals the full sum bit for bit, on sparse hash vectors and on vectors
// with negative zeros, tiny values and cancelling terms.
func TestCosineAt(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 10))
	docs, query := hashCorpus(r, 2000, 800)
	negZero := float32(math.Copysign(0, -1))
	for i, d := range docs {
		q, v := normalised(HashVector(query())), normalised(HashVector(d))
		if i%3 == 0 { // cancelling, tiny and negative-zero components
			q = slices.Clone(q)
			for j := range q {
				switch {
				case q[j] == 0 && j%2 == 0:
					q[j] = negZero
				case q[j] != 0 && j%5 == 0:
					v[j] = -q[j]
				case q[j] != 0 && j%7 == 0:
					v[j] = 1e-38
				}
			}
		}
		nz := nonZeros(q)
		if nz == nil {
			t.Fatalf("doc %d: query not sparse", i)
		}
		got, want := cosineAt(q, v, nz), cosine(q, v)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("doc %d: sparse sum %v (%x), full sum %v (%x)", i, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestVecRescorePrunes is the property test of the bounded re-score: on
// sparse hash-384 corpora and dense random vectors, with filters, every
// pool member's exact cosine is within its code bound (never above
// codeBound.upper), every integer row's exact cosine within the first
// pass's bound (vecQuery.firstBound, the neighbours' bound), the pruned
// re-score returns exactly what re-scoring the whole pool returns (ids,
// scores, order), and on the sparse corpus the bound rules out most of the
// pool.
func TestVecRescorePrunes(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 11))
	docs, query := hashCorpus(r, 4*chunkRows, 3000)
	sparse := newVecIndex(HashDims)
	for i, d := range docs {
		sparse.put(&entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}, HashVector(d))
	}
	dense := newVecIndex(128)
	centres := [][]float32{randomUnit(r, 128, nil, 0), randomUnit(r, 128, nil, 0)}
	for i := range 3000 {
		dense.put(&entry{doc: Doc{ID: fmt.Sprintf("d%05d", i)}, ord: i}, randomUnit(r, 128, centres[i%2], 0.8))
	}
	// A damaged float32 row (what a search may see while a mapped
	// snapshot is verified) is dropped by both.
	sparse.vec(7)[3] = float32(math.NaN())
	for _, tc := range []struct {
		name  string
		x     *vecIndex
		query func() []float32
	}{
		{"sparse", sparse, func() []float32 { return normalised(HashVector(query())) }},
		{"dense", dense, func() []float32 { return randomUnit(r, 128, centres[r.IntN(2)], 0.8) }},
	} {
		ruledOut, pooled, ints, intOut := 0, 0, 0, 0
		for qi := range 60 {
			q := tc.query()
			n := []int{10, 110, 1}[qi%3]
			keep := colsFilter(qi, r)
			sc := &scratch{}
			pool, _ := tc.x.candidates(context.Background(), sc, q, max(poolFactor*n, minPool), keep)
			slots := make([]int, len(pool))
			for i, c := range pool {
				slots[i] = int(c.i)
			}
			vq := tc.x.query(q)
			upper := func(c cand) float64 { return vq.upper(int(c.i)) }
			qs, el2 := queryResidual(q, (&scratch{}).query8(tc.x.stride, q))
			for _, c := range pool {
				ex := cosine(q, tc.x.vec(int(c.i)))
				if !math.IsNaN(ex) && ex > upper(c) {
					t.Fatalf("%s query %d: exact %v above the bound %v", tc.name, qi, ex, upper(c))
				}
				if !tc.x.isInt(int(c.i)) {
					continue
				}
				if ib := intBound(qs, c.s, el2); !math.IsNaN(ex) && ex > ib {
					t.Fatalf("%s query %d: exact %v above the first pass's bound %v", tc.name, qi, ex, ib)
				}
			}
			// The first pass's bound of every integer row, pooled or
			// not (the neighbours' bounds: vecQuery.firstBound).
			fq := tc.x.query(q)
			fq.keepFirst = true
			if !fq.keep(sc, qs, el2) {
				t.Fatal("keep refused the first pass")
			}
			for i := range tc.x.ents {
				ex := cosine(q, tc.x.vec(i))
				if b, ok := fq.firstBound(i); ok && !math.IsNaN(ex) && ex > b {
					t.Fatalf("%s query %d: row %d exact %v above the first pass's bound %v", tc.name, qi, i, ex, b)
				}
			}
			fq.first = nil // sc is the test's
			want, _ := tc.x.exact(context.Background(), tc.x.query(q), n, nil, slots)
			got := tc.x.rescore(&scratch{}, tc.x.query(q), n, slices.Clone(pool))
			if !slices.Equal(got, want) {
				t.Fatalf("%s query %d (n %d): pruned %v, whole pool %v", tc.name, qi, n, got, want)
			}
			if len(want) == n {
				for _, c := range pool {
					if upper(c) < want[n-1].score {
						ruledOut++
					}
					if !tc.x.isInt(int(c.i)) {
						continue
					}
					ints++
					if intBound(qs, c.s, el2) < want[n-1].score {
						intOut++
					}
				}
				pooled += len(pool)
			}
		}
		t.Logf("%s: the bound rules out %d of %d pool members; the first pass's bound %d of %d integer rows", tc.name, ruledOut, pooled, intOut, ints)
		if tc.name == "sparse" && 2*ruledOut < pooled {
			t.Errorf("sparse: the bound rules out only %d of %d", ruledOut, pooled)
		}
		tc.x.free()
	}
}
