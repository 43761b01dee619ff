package recall

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"
)

// TestVecSignsRecall is the property test of the sign pass on dense
// vectors (use-lite's shape, at 384 dimensions): random unit vectors around
// random centres, enough of them for the pass to run, deletions, and
// filters from none to one keeping fewer rows than asked for. Against the
// exact top 10 of every allowed vector, the index keeps recall@10 ≥ 0.99,
// returns only allowed rows, and never fewer than min(10, allowed). The
// deleted rows' sign rows are gone from the slabs.
func TestVecSignsRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 20,000 vectors")
	}
	r := rand.New(rand.NewPCG(14, 384))
	const dims, rows = 384, 20000
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
	var gone [][]uint64
	for range 1000 {
		e := ents[r.IntN(rows)]
		if e.vslot != 0 {
			gone = append(gone, append([]uint64(nil), x.signs(e.vslot-1)...))
		}
		x.remove(e)
	}
	if !x.signsPay(10) {
		t.Fatalf("%d dense rows (%d zeros): the sign pass does not run", x.len(), x.zeros)
	}
	for _, s := range gone {
		needle := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
		for _, c := range x.chunks {
			if bytes.Contains(c.mem, needle) {
				t.Fatal("a removed row's signs are still in the index's memory")
			}
		}
	}
	found, want := 0, 0
	for qi := range 120 {
		q := randomUnit(r, dims, centres[r.IntN(len(centres))], 0.6)
		keep, allowed := signsFilter(qi, x)
		exact, _ := x.exact(context.Background(), x.query(q), 10, keep, nil)
		got := x.search(q, 10, keep)
		if len(got) != min(10, allowed) || len(exact) != len(got) {
			t.Fatalf("query %d: %d hits, exact %d, %d allowed", qi, len(got), len(exact), allowed)
		}
		in := map[string]bool{}
		for _, s := range got {
			in[s.id] = true
			if e := x.ents[0]; keep != nil && !keepID(x, keep, s.id) {
				t.Fatalf("query %d: %s is filtered out (%v)", qi, s.id, e.doc.ID)
			}
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

// signsFilter returns query qi's filter and how many rows of x it keeps:
// none, every m-th row, or a handful.
func signsFilter(qi int, x *vecIndex) (func(*entry) bool, int) {
	var keep func(*entry) bool
	switch qi % 4 {
	case 1:
		keep = func(e *entry) bool { return e.ord%3 == 0 }
	case 2:
		keep = func(e *entry) bool { return e.ord%50 == 7 }
	case 3:
		keep = func(e *entry) bool { return e.ord%4001 == 5 }
	}
	n := 0
	for _, e := range x.ents {
		if keep == nil || keep(e) {
			n++
		}
	}
	return keep, n
}

func keepID(x *vecIndex, keep func(*entry) bool, id string) bool {
	for _, e := range x.ents {
		if e.doc.ID == id {
			return keep(e)
		}
	}
	return false
}

// TestVecSignsSparse: hash-384 vectors, mostly zeros, never take the sign
// pass however many they are (their signs lose the nearest; vecsigns.go),
// and a shard of dense vectors too small for it to pay does not either.
func TestVecSignsSparse(t *testing.T) {
	x := newVecIndex(HashDims)
	for i := range signRows + 10 {
		x.put(&entry{doc: Doc{ID: fmt.Sprint(i)}, ord: i}, HashVector(fmt.Sprintf("turn %d about topic%d and item%d", i, i%17, i%101)))
	}
	if x.signsPay(10) {
		t.Errorf("%d sparse rows (%d zeros): the sign pass runs", x.len(), x.zeros)
	}
	r := rand.New(rand.NewPCG(1, 2))
	d := newVecIndex(HashDims)
	for i := range signRows - 1 {
		d.put(&entry{doc: Doc{ID: fmt.Sprint(i)}, ord: i}, randomUnit(r, HashDims, nil, 0))
	}
	if d.signsPay(10) {
		t.Errorf("%d dense rows: the sign pass runs", d.len())
	}
}

// TestVecSignsSnapshot: a dense index written to a snapshot's vector
// rows and chunks and mapped back keeps its signs (the chunks hold them)
// and zero count, the same as the index that was written, and the sign
// pass runs on it.
func TestVecSignsSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 17,000 vectors")
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := newVecIndex(HashDims)
	var slots []*entry
	for i := range signRows + 600 {
		e := &entry{doc: Doc{ID: fmt.Sprint(i)}, ord: i}
		x.put(e, randomUnit(r, HashDims, nil, 0))
		slots = append(slots, e)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "rows"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sw := newSnapWriter(f)
	x.writeRowsMeta(sw)
	metaEnd := sw.n
	sw.pad(snapAlign)
	x.writeChunks(sw)
	sw.bytes(make([]byte, snapFooter))
	if sw.cut(); sw.err != nil {
		t.Fatal(sw.err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := &shard{}
	cols, err := s.readRows(&snapReader{b: b[:metaEnd]}, HashDims, slots)
	if err != nil {
		t.Fatal(err)
	}
	sf := &snapFile{f: f, sh: share(f), size: sw.n, vecOff: (metaEnd + snapAlign - 1) / snapAlign * snapAlign}
	if err := s.mapChunks(sf, vecPart{chunkBytes: int64(x.chunkBytes()), cols: cols}, nil); err != nil {
		t.Fatal(err)
	}
	y := s.vx
	defer y.free()
	if !x.signed || !y.signed || y.zeros != x.zeros || !y.signsPay(10) {
		t.Fatalf("signed %v/%v, zeros %d/%d", x.signed, y.signed, x.zeros, y.zeros)
	}
	for _, i := range []int{0, 4321, signRows + 599} {
		if !slices.Equal(x.signs(i), y.signs(i)) || !slices.Equal(x.vec(i), y.vec(i)) || !slices.Equal(x.code(i), y.code(i)) {
			t.Fatalf("row %d: signs %x loaded as %x", i, x.signs(i), y.signs(i))
		}
	}
}
