package recall

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestVecIndexRemoveErases: removing a message's vector leaves no copy of
// its int8 code anywhere in the index's backing array (the moved last row
// is zeroed behind it), the other rows stay findable, and the removed one
// is never returned again.
func TestVecIndexRemoveErases(t *testing.T) {
	x := newVecIndex(HashDims)
	var ents []*entry
	for i := range 3000 {
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%04d", i)}, vec: HashVector(fmt.Sprintf("turn %d about topic%d and item%d", i, i%17, i%101))}
		x.put(e)
		ents = append(ents, e)
	}
	// The last slot (nothing moves), then one in the middle (the last
	// row moves into it).
	last, gone := ents[2999], ents[1234]
	for _, e := range []*entry{last, gone} {
		code := make([]int8, x.stride)
		encode8(code, e.vec)
		x.remove(e)
		all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.codes))), cap(x.codes))
		needle := unsafe.Slice((*byte)(unsafe.Pointer(&code[0])), len(code))
		if bytes.Contains(all, needle) {
			t.Fatalf("%s: the removed vector's code is still in the index's memory", e.doc.ID)
		}
		if e.vslot != 0 {
			t.Fatalf("%s: removed, slot %d", e.doc.ID, e.vslot)
		}
	}
	if x.len() != 2998 {
		t.Fatalf("len %d", x.len())
	}
	for _, e := range []*entry{ents[0], ents[1233], ents[2998]} {
		got := x.search(e.vec, 10, nil)
		if len(got) == 0 || got[0].id != e.doc.ID {
			t.Errorf("%s: top %v", e.doc.ID, got)
		}
	}
	for _, e := range []*entry{last, gone} {
		for _, s := range x.search(e.vec, 50, nil) {
			if s.id == e.doc.ID {
				t.Fatalf("removed %s returned", s.id)
			}
		}
	}
}

// TestVecIndexDense is the property test of the int8 index on dense
// vectors, the shape of a semantic embedder's (use-lite: 512 dimensions):
// random unit vectors drawn around random centres, a filter keeping a
// random share of them, and deletions; the index's top 10 against the exact
// top 10 of every allowed vector keeps recall@10 ≥ 0.99.
func TestVecIndexDense(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 512))
	const dims, rows = 512, 8000
	centres := make([][]float32, 40)
	for i := range centres {
		centres[i] = randomUnit(r, dims, nil, 0)
	}
	x := newVecIndex(dims)
	var ents []*entry
	for i := range rows {
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i, vec: randomUnit(r, dims, centres[r.IntN(len(centres))], 0.6)}
		x.put(e)
		ents = append(ents, e)
	}
	for range 800 {
		x.remove(ents[r.IntN(rows)])
	}
	found, want := 0, 0
	for qi := range 100 {
		q := randomUnit(r, dims, centres[r.IntN(len(centres))], 0.6)
		var keep func(*entry) bool
		if qi%2 == 1 {
			mod := 2 + qi%5
			keep = func(e *entry) bool { return e.ord%mod == 0 }
		}
		exact := x.exact(q, 10, keep, nil)
		got := x.search(q, 10, keep)
		if len(got) != len(exact) {
			t.Fatalf("query %d: %d hits, exact %d", qi, len(got), len(exact))
		}
		in := map[string]bool{}
		for _, s := range got {
			in[s.id] = true
		}
		for _, s := range exact {
			want++
			if in[s.id] {
				found++
			}
		}
	}
	rec := float64(found) / float64(want)
	t.Logf("recall@10 %.4f", rec)
	if rec < 0.99 {
		t.Errorf("recall@10 %.4f < 0.99", rec)
	}
}

// randomUnit returns a random unit vector: Gaussian noise of weight noise
// around centre (nil: pure noise).
func randomUnit(r *rand.Rand, dims int, centre []float32, noise float64) []float32 {
	v := make([]float32, dims)
	var n float64
	for i := range v {
		f := r.NormFloat64()
		if centre != nil {
			f = float64(centre[i]) + noise*f/math.Sqrt(float64(dims))
		}
		v[i] = float32(f)
		n += f * f
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}
