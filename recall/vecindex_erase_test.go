package recall

import (
	"bytes"
	"fmt"
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
