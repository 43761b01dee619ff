package recall

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestIntCodes: intCodes takes a vector as an integer row exactly when
// its values are hash-384's division of half-integers (every hash vector
// of an ordinary text, the empty text's unit vector, integer vectors of
// codes up to 127), and refuses a dense vector, a hash vector one ulp off,
// and one whose weight passes 63.5; the integers it finds give back every
// value.
func TestIntCodes(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 20))
	docs, _ := hashCorpus(r, 300, 800)
	type tc struct {
		name string
		v    []float32
		want bool
	}
	var cases []tc
	for i, d := range docs {
		cases = append(cases, tc{fmt.Sprint("hash ", i), HashVector(d), true})
	}
	cases = append(cases, tc{"empty", HashVector(""), true}, tc{"one word", HashVector("lisbon"), true})
	for i := range 50 {
		k := make([]float64, HashDims)
		for range 1 + r.IntN(60) {
			k[r.IntN(HashDims)] = float64(r.IntN(255) - 127)
		}
		k[r.IntN(HashDims)] = 127 * float64(1-2*r.IntN(2))
		cases = append(cases, tc{fmt.Sprint("integers ", i), halfIntegers(k), true})
		dense := randomUnit(r, HashDims, nil, 0)
		cases = append(cases, tc{fmt.Sprint("dense ", i), dense, false})
		off := HashVector(docs[i])
		j := slices.IndexFunc(off, func(f float32) bool { return f != 0 })
		off[j] = math.Nextafter32(off[j], 2)
		cases = append(cases, tc{fmt.Sprint("one ulp off ", i), off, false})
	}
	cases = append(cases, tc{"weight over 63.5 (k 400, 200, 200, 2, 1)", HashVector(strings.Repeat("abcd ", 200) + "xyz"), false})
	for _, c := range cases {
		dst := make([]int8, HashDims)
		s, ok := intCodes(dst, c.v)
		if ok != c.want {
			t.Fatalf("%s: integer row %v, want %v", c.name, ok, c.want)
		}
		if !ok {
			continue
		}
		norm := intNorm(dst)
		for j, f := range c.v {
			if got := intValue(dst[j], norm); got != f {
				t.Fatalf("%s: component %d is %v from code %d, value %v", c.name, j, got, dst[j], f)
			}
		}
		if want := float32(0.5 / norm); s != want {
			t.Fatalf("%s: scale %v, want %v", c.name, s, want)
		}
	}
}

// halfIntegers returns hashVector's normalisation of the half-integers
// k/2.
func halfIntegers(k []float64) []float32 {
	var sum float64
	for _, x := range k {
		sum += (x / 2) * (x / 2)
	}
	out := make([]float32, len(k))
	for i, x := range k {
		out[i] = float32(x / 2 / math.Sqrt(sum))
	}
	return out
}

// TestIntRowsExact is the property test of integer rows: on an index of
// hash vectors, dense vectors and vectors one ulp off, every integer row's
// values, cosines with sparse and dense queries, and cosines with other
// rows (the exchange rule's) computed from its codes equal, bit for bit,
// those of its float32 values; the codes' bound is never below the exact
// cosine; and searches with filters, through the re-score and the context
// rule's scorer, return the same ids and scores whether the rows' slabs
// are taken as a snapshot file's (integer rows from their codes) or as
// memory.
func TestIntRowsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 21))
	docs, query := hashCorpus(r, 3*chunkRows, 2500)
	x := newVecIndex(HashDims)
	defer x.free()
	ints := 0
	for i, d := range docs {
		v := HashVector(d)
		switch i % 50 {
		case 7:
			v = randomUnit(r, HashDims, nil, 0)
		case 9:
			j := slices.IndexFunc(v, func(f float32) bool { return f != 0 })
			v[j] = math.Nextafter32(v[j], 2)
		}
		x.put(&entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}, v)
		if x.isInt(i) {
			ints++
		}
	}
	if ints < len(docs)*9/10 || ints == len(docs) {
		t.Fatalf("%d integer rows of %d", ints, len(docs))
	}
	fileView(t, x, true)
	queries := make([][]float32, 0, 200)
	for i := range 200 {
		if i%4 == 3 {
			queries = append(queries, randomUnit(r, HashDims, nil, 0))
		} else {
			queries = append(queries, normalised(HashVector(query())))
		}
	}
	buf := make([]float32, HashDims)
	for qi, q := range queries {
		vq := x.query(q)
		for k := range 40 {
			i := r.IntN(x.len())
			v := x.vec(i)
			want := cosine(q, v)
			if got := vq.cos(i); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("query %d row %d (integer %v): cosine %v, values give %v", qi, i, x.isInt(i), got, want)
			}
			if ub := vq.upper(i); ub < want {
				t.Fatalf("query %d row %d (integer %v): bound %v below %v", qi, i, x.isInt(i), ub, want)
			}
			if x.isInt(i) && !slices.Equal(x.intRow(i, buf), v) {
				t.Fatalf("row %d: values from codes differ", i)
			}
			j := (i + 1 + k) % x.len()
			if got, want := vq.pairCos(i, j), cosine(v, x.vec(j)); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("rows %d, %d: pair cosine %v, values give %v", i, j, got, want)
			}
		}
	}
	for qi, q := range queries[:80] {
		keep := colsFilter(qi, r)
		n := []int{10, 110, 1}[qi%3]
		fileView(t, x, true)
		got := x.search(q, n, keep)
		fileView(t, x, false)
		want := x.search(q, n, keep)
		if !slices.Equal(got, want) {
			t.Fatalf("query %d (n %d): as a file's %v, as memory %v", qi, n, got, want)
		}
	}
}

// fileView makes x's slabs look mapped from a file (on) or not: written
// to since (dirty), so that their values are still read from memory, but
// vecQuery takes integer rows from their codes.
func fileView(t *testing.T, x *vecIndex, on bool) {
	t.Helper()
	for _, c := range x.chunks {
		if !on {
			c.file.release()
			c.file = nil
			continue
		}
		if c.file != nil {
			continue
		}
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		c.file, c.dirty = share(f), true
	}
}

// TestSelectBest: the first pass's pool is the pool best allowed rows by
// code score, ties by slot, as sorting every allowed row gives them; on
// an index with many equal scores (repeated texts), with filters and
// pools from 1 to more than half the rows, and on one whose sampled rows
// (every sampleStride-th) are the query itself, so that the floor guessed
// from them holds fewer than pool rows and the scan starts again.
func TestSelectBest(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 22))
	docs, query := hashCorpus(r, 2*chunkRows+300, 40)
	x := newVecIndex(HashDims)
	defer x.free()
	for i := range docs {
		d := docs[r.IntN(1+i%200)] // repeats: equal vectors, equal scores
		x.put(&entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}, HashVector(d))
	}
	for qi := range 120 {
		q := normalised(HashVector(query()))
		pool := []int{1, 2, 64, 440, 1500}[qi%5]
		checkPool(t, x, q, pool, colsFilter(qi, r))
	}
	const text = "zz9 qq8 the sampled rows"
	y := newVecIndex(HashDims)
	defer y.free()
	for i := range docs {
		d := docs[i]
		if i%sampleStride == 0 {
			d = text
		}
		y.put(&entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}, HashVector(d))
	}
	q := normalised(HashVector(text))
	if _, ok := sampleFloor(y, make([]int32, y.len()), nil, 64); !ok {
		t.Fatal("no floor guessed")
	}
	checkPool(t, y, q, 64, nil)
}

// checkPool fails unless x.candidates returns the pool best allowed rows
// by code score, ties by slot.
func checkPool(t *testing.T, x *vecIndex, q []float32, pool int, keep func(*entry) bool) {
	t.Helper()
	got, _ := x.candidates(context.Background(), &scratch{}, q, pool, keep)
	sc := &scratch{}
	sc.query8(x.stride, q)
	var all []cand
	dot := make([]int32, 1)
	for i := range x.len() {
		dots8(sc.q8, x.code(i), dot)
		if keep == nil || keep(x.ents[i]) {
			all = append(all, cand{float32(dot[0]) * x.scale(i), int32(i)})
		}
	}
	slices.SortFunc(all, func(a, b cand) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	want := all[:min(pool, len(all))]
	slices.SortFunc(got, func(a, b cand) int { return int(a.i - b.i) })
	slices.SortFunc(want, func(a, b cand) int { return int(a.i - b.i) })
	if !slices.Equal(got, want) {
		t.Fatalf("pool %d: %d candidates, want %d (%v, want %v)", pool, len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
	}
}

// TestScoreMask: the first pass's mask kernel (AVX2 where it runs) sets
// exactly the bits of the rows the Go loop scores above the floor, with
// negative (integer-row) and zero scales, scores equal to the floor, and
// floors of −Inf and +Inf.
func TestScoreMask(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 23))
	for trial := range 200 {
		n := 8 * (1 + r.IntN(200))
		dots, scales := make([]int32, n), make([]float32, n)
		for i := range dots {
			dots[i] = int32(r.IntN(2_000_001) - 1_000_000)
			scales[i] = float32(r.Float64() / 1000)
			switch r.IntN(6) {
			case 0:
				scales[i] = -scales[i]
			case 1:
				scales[i] = 0
			case 2:
				dots[i] = int32(r.IntN(21) - 10)
			}
		}
		floor := float32(dots[r.IntN(n)]) * abs32(scales[r.IntN(n)])
		switch trial % 10 {
		case 1:
			floor = float32(math.Inf(-1))
		case 2:
			floor = float32(math.Inf(1))
		case 3:
			floor = float32(dots[5]) * abs32(scales[5]) // a row exactly at the floor
		}
		got, want := make([]uint8, n/8), make([]uint8, n/8)
		scoreMask(dots, scales, floor, got)
		scoreMaskGo(dots, scales, floor, want)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (floor %v): mask %v, Go %v", trial, floor, got, want)
		}
	}
}
