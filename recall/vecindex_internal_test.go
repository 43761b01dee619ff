package recall

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestVecIndexRemoveErases: removing a message's vector leaves no copy of
// its int8 code nor of its float32 values anywhere in the index's slabs
// (the moved last row is zeroed behind it), the other rows stay findable,
// and the removed one is never returned again. 2050 rows fill two slabs and
// two rows of a third, which is unmapped once both have gone.
func TestVecIndexRemoveErases(t *testing.T) {
	x := newVecIndex(HashDims)
	var ents []*entry
	vecs := map[*entry][]float32{}
	const rows = 2*chunkRows + 2
	for i := range rows {
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%04d", i)}}
		vecs[e] = HashVector(fmt.Sprintf("turn %d about topic%d and item%d", i, i%17, i%101))
		x.put(e, vecs[e])
		ents = append(ents, e)
	}
	if len(x.chunks) != 3 {
		t.Fatalf("%d rows in %d slabs, want 3", rows, len(x.chunks))
	}
	// The last slot (nothing moves), then one in the middle (the last
	// row moves into it and its slab, empty, is unmapped).
	last, gone := ents[rows-1], ents[1234]
	for _, e := range []*entry{last, gone} {
		code := make([]int8, x.stride)
		encode8(code, vecs[e])
		x.remove(e)
		needles := [][]byte{
			unsafe.Slice((*byte)(unsafe.Pointer(&code[0])), len(code)),
			unsafe.Slice((*byte)(unsafe.Pointer(&vecs[e][0])), 4*len(vecs[e])),
		}
		for _, c := range x.chunks {
			for j, needle := range needles {
				if bytes.Contains(c.mem, needle) {
					t.Fatalf("%s: the removed vector's %s is still in the index's memory", e.doc.ID, []string{"code", "float32 values"}[j])
				}
			}
		}
		if e.vslot != 0 {
			t.Fatalf("%s: removed, slot %d", e.doc.ID, e.vslot)
		}
	}
	if x.len() != rows-2 || len(x.chunks) != 2 || ents[rows-2].vslot != 1234+1 {
		t.Fatalf("len %d in %d slabs, the last row in slot %d; want %d in 2, slot %d", x.len(), len(x.chunks), ents[rows-2].vslot, rows-2, 1234+1)
	}
	for _, e := range []*entry{ents[0], ents[1233], ents[rows-2]} {
		got := x.search(vecs[e], 10, nil)
		if len(got) == 0 || got[0].id != e.doc.ID {
			t.Errorf("%s: top %v", e.doc.ID, got)
		}
	}
	for _, e := range []*entry{last, gone} {
		for _, s := range x.search(vecs[e], 50, nil) {
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
		e := &entry{doc: Doc{ID: fmt.Sprintf("m%05d", i)}, ord: i}
		x.put(e, randomUnit(r, dims, centres[r.IntN(len(centres))], 0.6))
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
		exact, _ := x.exact(context.Background(), x.query(q), 10, keep, nil)
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
