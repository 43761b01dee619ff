package recall

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"
)

// TestSnapshotOrdArraysInPlace: a loaded shard's postings' per-ord arrays
// (creation times, relative dates, term counts, months) and its threads'
// vector sums lie in the snapshot's mapped messages part, read as they
// are stored (format 9), and hold what the built shard's do.
func TestSnapshotOrdArraysInPlace(t *testing.T) {
	built := fuzzShard(t, 1100)
	s, err := loadSnapshotBytes(t, snapshotBytes(t, built))
	if err != nil {
		t.Fatal(err)
	}
	part := s.text.chunks[0].mem
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	inPart := func(p unsafe.Pointer, n uintptr) bool {
		a := uintptr(p)
		return a >= lo && a+n <= lo+uintptr(len(part))
	}
	p := &s.post
	n := uintptr(len(s.docs.file))
	for name, arr := range map[string]struct {
		p    unsafe.Pointer
		size uintptr
	}{"creation times": {unsafe.Pointer(unsafe.SliceData(p.when)), 8 * n}, "relative dates": {unsafe.Pointer(unsafe.SliceData(p.ref)), 8 * n},
		"term counts": {unsafe.Pointer(unsafe.SliceData(p.lens)), 4 * n}, "months": {unsafe.Pointer(unsafe.SliceData(p.month)), n}} {
		if !inPart(arr.p, arr.size) {
			t.Errorf("the %s do not lie in the snapshot's messages part", name)
		}
	}
	if len(s.topics) == 0 {
		t.Fatal("no thread vector sums")
	}
	for th, tp := range s.topics {
		if !inPart(unsafe.Pointer(unsafe.SliceData(tp.sum)), 8*uintptr(len(tp.sum))) {
			t.Errorf("the vector sum of %s does not lie in the snapshot's messages part", th)
		}
	}
	for id, e := range built.docs.all() {
		g := s.docs.get(id)
		a, ap, an := postDump(&built.post, e.ord)
		b, bp, bn := postDump(p, g.ord)
		if a != b || ap != bp || an != bn {
			t.Fatalf("message %s: per-ord %v %q %q, built %v %q %q", id, b, bp, bn, a, ap, an)
		}
	}
}

// TestSnapshotOrdArraysForged: a snapshot whose stored per-ord term count
// or creation time disagrees with its message, or whose relative date is
// longer than any, under checksums that match, is refused at load.
func TestSnapshotOrdArraysForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	off, n := ordArraysAt(t, good)
	for name, at := range map[string]int{"term count": off + 16*n + 4*7, "creation time": off + 8*7} {
		t.Run(name, func(t *testing.T) {
			b := bytes.Clone(good)
			b[at] ^= 0x01
			fixChecksums(b)
			if _, err := loadSnapshotBytes(t, b); err == nil {
				t.Fatal("the forged snapshot was used")
			}
		})
	}
	b := bytes.Clone(good)
	binary.LittleEndian.PutUint16(b[off+8*n+8*9+4:], maxRefDays+1)
	fixChecksums(b)
	if _, err := loadSnapshotBytes(t, b); err == nil {
		t.Fatal("a relative date past maxRefDays was used")
	}
}

// ordArraysAt returns where the per-ord arrays of snapshot b begin and
// how many messages they number.
func ordArraysAt(t *testing.T, b []byte) (off, n int) {
	t.Helper()
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
	return (r.off + 7) / 8 * 8, len(s.docs.file)
}

// TestSnapshotColumnsForged: a snapshot whose messages' columns (format
// 9: snapshot_msgs.go) hold a role out of the table, a vector slot below
// −1, offsets that descend or run past their region, or a term id out of
// range, under checksums that match, is refused at load; the good file
// loads.
func TestSnapshotColumnsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	recs, contents, terms, n := columnsAt(t, good)
	u32 := func(at int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[at:], v) }
	}
	u64 := func(at int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[at:], v) }
	}
	for name, forge := range map[string]func([]byte){
		"role out of the table":     u32(recs+snapMsgSize*5+24, 1<<20),
		"name out of the table":     u32(recs+snapMsgSize*5+28, 1<<20),
		"vector slot below -1":      u32(recs+snapMsgSize*5+20, uint32(0xfffffff0)),
		"content offsets descend":   u64(contents+8*3, 1),
		"content past its region":   u64(contents+8*n, 1<<40),
		"term offsets descend":      u64(terms+8*3, 0),
		"term offsets past the end": u64(terms+8*n, 1<<40),
		"term id out of range":      u32(terms+8*(n+1)+4*10, 1<<20),
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

// columnsAt returns where the messages' columns of snapshot b lie: the
// records, the contents' offsets and the term ids' offsets, and how many
// messages there are.
func columnsAt(t *testing.T, b []byte) (recs, contents, terms, n int) {
	t.Helper()
	off, n := ordArraysAt(t, b)
	r := &snapReader{b: b[:binary.LittleEndian.Uint64(b[len(b)-snapFooter:])], off: off + 21*n}
	recs = (r.off + 7) / 8 * 8
	r.off = recs + snapMsgSize*n
	if _, _, err := r.strings(r.count(4)); err != nil {
		t.Fatal(err)
	}
	contents = (r.off + 7) / 8 * 8
	_, c, err := r.region(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	r.uint32s(blocksOf(len(c)))                  // their blocks' sums (v10)
	if _, _, err := r.region(n, 1); err != nil { // the metadata
		t.Fatal(err)
	}
	terms = (r.off + 7) / 8 * 8
	return recs, contents, terms, n
}
