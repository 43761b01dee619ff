package recall

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"
)

// TestSnapshotSlotsFromColumns: the entries by vector slot and the ids of
// the messages without a vector are made from the messages' columns, with
// no entry decoded (slotsJob runs beside the decoding, which wrote each
// entry's slot before the load read all 100,000 entries of a 100k shard
// back to find them: issue 14); they are the load's.
func TestSnapshotSlotsFromColumns(t *testing.T) {
	b := snapshotBytes(t, fuzzShard(t, 1100))
	loaded, err := loadSnapshotBytes(t, b)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _, n := columnsAt(t, b)
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	defer s.unload()
	r := &snapReader{b: b[:binary.LittleEndian.Uint64(b[len(b)-snapFooter:])]}
	r.take(len(snapMagic) + 4)
	if _, _, err := s.readHeader(r, HashEmbedder{}); err != nil {
		t.Fatal(err)
	}
	if err := s.readStats(r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.readIDs(r); err != nil {
		t.Fatal(err)
	}
	er := &entryReader{s: s, all: make([]entry, n),
		c: &msgColumns{recs: inPlace[snapMsg](b[recs:recs+snapMsgSize*n], n)}}
	var vs vecSlots
	if err := er.slotsJob(nil, len(b)/4, &vs)(); err != nil {
		t.Fatal(err)
	}
	if len(vs.slots) != loaded.vx.len() {
		t.Fatalf("%d slots, the load has %d", len(vs.slots), loaded.vx.len())
	}
	for i, e := range vs.slots {
		o := int((uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(&er.all[0]))) / unsafe.Sizeof(entry{}))
		if want := loaded.vx.ents[i].ord; o != want || e.doc.ID != "" {
			t.Fatalf("slot %d: ord %d (id %q before decoding), the load's %d", i+1, o, e.doc.ID, want)
		}
	}
	var want []string
	for _, e := range loaded.docs.file {
		if e.vslot == 0 {
			want = append(want, e.doc.ID)
		}
	}
	if len(want) == 0 || len(vs.vecless) != len(want) {
		t.Fatalf("%d messages without a vector, the load has %d", len(vs.vecless), len(want))
	}
	for i := range want {
		if vs.vecless[i] != want[i] {
			t.Fatalf("message %d without a vector: %q, the load's %q", i, vs.vecless[i], want[i])
		}
	}
}

// TestSnapshotSlotsForged: a snapshot whose messages name a vector slot
// twice (in one run of the decoding or in two) or one past every row, under
// checksums that match, is refused at load, with one decoding goroutine
// and with two.
func TestSnapshotSlotsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	recs, _, _, n := columnsAt(t, good)
	slotOf := func(o int) uint32 { return binary.LittleEndian.Uint32(good[recs+snapMsgSize*o+20:]) }
	with := func(o int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[recs+snapMsgSize*o+20:], v) }
	}
	first, last := -1, -1
	for o := range n {
		if int32(slotOf(o)) >= 0 {
			if first < 0 {
				first = o
			}
			last = o
		}
	}
	for _, min := range []int{2, 1 << 30} {
		func() {
			defer func(old int) { parallelMin = old }(parallelMin)
			parallelMin = min
			for name, forge := range map[string]func([]byte){
				"slot twice, far apart": with(last, slotOf(first)),
				"slot twice, adjacent":  with(first+1, slotOf(first)),
				"slot past every row":   with(last, uint32(n+5)),
			} {
				b := bytes.Clone(good)
				forge(b)
				fixChecksums(b)
				if _, err := loadSnapshotBytes(t, b); err == nil {
					t.Errorf("%s (parallelMin %d): the forged snapshot was used", name, min)
				}
			}
		}()
	}
	if _, err := loadSnapshotBytes(t, good); err != nil {
		t.Fatal(err)
	}
}
