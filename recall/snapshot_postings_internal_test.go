package recall

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"unsafe"
)

// TestSnapshotPostingsInPlace: a loaded shard's postings lists (format 11)
// lie one after the other in the snapshot's mapped messages part, after
// their offsets, so that the load reads the offsets only (up to format 10
// each list followed its own count, which the load read: a page of lists
// after another), and makes no slice of them until a write (postings.own);
// they hold what the built shard's hold, before and after.
func TestSnapshotPostingsInPlace(t *testing.T) {
	built := fuzzShard(t, 1100)
	s, err := loadSnapshotBytes(t, snapshotBytes(t, built))
	if err != nil {
		t.Fatal(err)
	}
	if s.post.lists != nil {
		t.Fatalf("the load made %d lists", len(s.post.lists))
	}
	part := s.text.chunks[0].mem
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	var lists [][]uint32
	for term := range s.post.terms() {
		lists = append(lists, s.post.list(uint32(term)))
	}
	if len(lists) == 0 || len(lists[0]) == 0 {
		t.Fatal("no postings, or the first term's list is empty")
	}
	next := uintptr(unsafe.Pointer(&lists[0][0]))
	for term, l := range lists {
		if len(l) == 0 {
			t.Fatalf("term %d: empty list (the file keeps only live terms)", term)
		}
		at := uintptr(unsafe.Pointer(&l[0]))
		if at != next || at < lo || at+4*uintptr(len(l)) > lo+uintptr(len(part)) {
			t.Fatalf("term %d: its list lies at %#x of the part, the list before ended at %#x", term, at-lo, next-lo)
		}
		next = at + 4*uintptr(len(l))
	}
	var a, b int
	for _, l := range built.post.lists {
		a += len(l)
	}
	for _, l := range lists {
		b += len(l)
	}
	if a != b {
		t.Fatalf("%d postings loaded, %d built", b, a)
	}
	want := postingsByTerm(built)
	if got := postingsByTerm(s); !reflect.DeepEqual(got, want) {
		t.Fatal("the loaded postings differ from the built shard's")
	}
	s.post.own() // as a write does
	if len(s.post.lists) != len(lists) || s.post.offs != nil {
		t.Fatalf("after own: %d lists, offsets kept %v", len(s.post.lists), s.post.offs != nil)
	}
	for term, l := range lists {
		if got := s.post.list(uint32(term)); len(got) != len(l) || &got[0] != &l[0] {
			t.Fatalf("term %d: its list moved or changed at own", term)
		}
	}
	if got := postingsByTerm(s); !reflect.DeepEqual(got, want) {
		t.Fatal("the postings differ from the built shard's after own")
	}
}

// TestSnapshotPostingsForged: a snapshot whose postings offsets do not
// start at 0, descend, or run past the lists, under checksums that match,
// is refused at load; the good file loads.
func TestSnapshotPostingsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	offs, terms, _ := postingsAt(t, good)
	u32 := func(k int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[offs+4*k:], v) }
	}
	last := binary.LittleEndian.Uint32(good[offs+4*terms:])
	for name, forge := range map[string]func([]byte){
		"first offset not 0":   u32(0, 1),
		"offsets descend":      u32(3, 0),
		"offset past the last": u32(terms-1, last+1),
		"lists past the part":  u32(terms, 1<<28),
		"lists cut short":      u32(terms, last-1),
	} {
		t.Run(name, func(t *testing.T) {
			b := bytes.Clone(good)
			forge(b)
			fixChecksums(b)
			if _, err := loadSnapshotBytes(t, b); err == nil {
				t.Fatal("the forged snapshot was used")
			}
		})
	}
	if _, err := loadSnapshotBytes(t, good); err != nil {
		t.Fatal(err)
	}
}
