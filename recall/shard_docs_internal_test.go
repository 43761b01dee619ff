package recall

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"
)

// byTermOffset returns where the term ids by term of snapshot b begin, and
// how many there are (snapshot_format.go), with a reader past them.
func byTermOffset(t *testing.T, b []byte) (int, int, *snapReader) {
	t.Helper()
	r := &snapReader{b: b, off: len(snapMagic)}
	r.u32()
	r.str()
	r.str()
	r.u32()
	r.str()
	r.str()
	r.u32()
	r.i64()
	r.i64()
	r.i64()
	n := r.count(12)
	r.uint32s(n + 1)
	r.bytesOf()
	r.uint32s(n)
	r.take((4 - r.off%4) % 4)
	at := r.off
	r.uint32s(n)
	if r.err != nil {
		t.Fatal(r.err)
	}
	return at, n, r
}

// byIDOffset returns where the ords by id of snapshot b begin, and how
// many there are (snapshot_format.go).
func byIDOffset(t *testing.T, b []byte) (int, int) {
	t.Helper()
	_, _, r := byTermOffset(t, b)
	n := r.count(8)
	r.uint32s(n + 1)
	r.bytesOf()
	r.take((4 - r.off%4) % 4)
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.off, n
}

// TestSnapshotIDsForged: a snapshot whose ords by id are out of order,
// repeated or out of range is not used, checksums matching or not (a
// binary search over them would miss messages, or find one twice).
func TestSnapshotIDsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	at, n := byIDOffset(t, good)
	if n != 300 {
		t.Fatalf("%d ids, want 300", n)
	}
	forgeSortedTable(t, good, at, n)
}

// TestSnapshotTermsForged: likewise for the term ids by term (v8): a term
// would not be found, or be found under two ids.
func TestSnapshotTermsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	at, n, _ := byTermOffset(t, good)
	if n < 20 {
		t.Fatalf("%d terms, want at least 20", n)
	}
	forgeSortedTable(t, good, at, n)
}

// forgeSortedTable checks that the good snapshot loads, and that it does
// not once the sorted table of n u32 at byte at is forged.
func forgeSortedTable(t *testing.T, good []byte, at, n int) {
	t.Helper()
	if _, err := loadSnapshotBytes(t, good); err != nil {
		t.Fatalf("the good snapshot: %v", err)
	}
	u32 := func(b []byte, i int) []byte { return b[at+4*i : at+4*i+4] }
	for name, forge := range map[string]func(b []byte){
		"swapped": func(b []byte) {
			x, y := binary.LittleEndian.Uint32(u32(b, 10)), binary.LittleEndian.Uint32(u32(b, 11))
			binary.LittleEndian.PutUint32(u32(b, 10), y)
			binary.LittleEndian.PutUint32(u32(b, 11), x)
		},
		"repeated": func(b []byte) { copy(u32(b, 11), u32(b, 10)) },
		"out of range": func(b []byte) {
			binary.LittleEndian.PutUint32(u32(b, n-1), uint32(n))
		},
	} {
		b := append([]byte(nil), good...)
		forge(b)
		fixChecksums(b)
		if _, err := loadSnapshotBytes(t, b); !errors.Is(err, errSnapshot) {
			t.Errorf("%s: loaded (error %v), want errSnapshot", name, err)
		}
	}
}

// TestTermDictAfterLoad: a shard read from a snapshot finds its terms by
// the file's table with the ids they had (every message's terms read the
// same words as its text), numbers a new term after them through its map,
// finds that one too, and lists each term once.
func TestTermDictAfterLoad(t *testing.T) {
	want := fuzzShard(t, 300)
	s, err := loadSnapshotBytes(t, snapshotBytes(t, want))
	if err != nil {
		t.Fatal(err)
	}
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	n := len(s.stats.df)
	if len(s.stats.ids.byTerm) != n || len(s.stats.ids.m) != 0 {
		t.Fatalf("%d terms in the file's table and %d in the map, want %d and 0", len(s.stats.ids.byTerm), len(s.stats.ids.m), n)
	}
	seen := map[string]uint32{}
	for term, id := range s.stats.ids.all() {
		if _, dup := seen[term]; dup {
			t.Fatalf("term %q listed twice", term)
		}
		seen[term] = id
		if got := s.stats.lookup(term); got != id {
			t.Fatalf("term %q: lookup %d, listed %d", term, got, id)
		}
	}
	if len(seen) != n {
		t.Fatalf("%d terms listed, want %d", len(seen), n)
	}
	for wid, we := range want.docs.all() {
		e := s.docs.get(wid)
		for i, tid := range e.terms {
			if got, exp := s.stats.ids.fileTerm(tid), termOf(want, we.terms[i]); got != exp {
				t.Fatalf("%s: term %d reads %q, want %q", wid, i, got, exp)
			}
		}
	}
	if s.stats.lookup("zzzunseen") != noTerm {
		t.Fatal("a term no message holds has an id")
	}
	s.putDoc(&Doc{ID: "n0001", ThreadID: "t9", ResourceID: "res", Seq: 1, Role: "user", Content: "zzzunseen words", CreatedAt: time.Unix(1_800_000_000, 0)}, lex)
	if id := s.stats.lookup("zzzunseen"); id != uint32(n) {
		t.Fatalf("the new term has id %d, want %d", id, n)
	}
}

// termOf returns the term of id in s.
func termOf(s *shard, id uint32) string {
	for t, i := range s.stats.ids.all() {
		if i == id {
			return t
		}
	}
	return ""
}

// TestDocIndexAfterLoad: a shard read from a snapshot finds its messages
// by id through the file's table, and the changes after the load through
// its map: a removed message is gone, one put again under the same id is
// found, a new one is found, and every one is counted and listed once.
func TestDocIndexAfterLoad(t *testing.T) {
	s, err := loadSnapshotBytes(t, snapshotBytes(t, fuzzShard(t, 300)))
	if err != nil {
		t.Fatal(err)
	}
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	ctx := context.Background()
	for i := range 300 {
		if id := fmt.Sprintf("m%04d", i); s.docs.get(id) == nil || s.docs.get(id).doc.ID != id {
			t.Fatalf("%s not found after the load", id)
		}
	}
	if s.docs.get("m0300") != nil || s.docs.get("") != nil || s.docs.get("m") != nil {
		t.Fatal("an id the snapshot does not hold was found")
	}
	s.removeDoc(ctx, "m0007")
	s.removeDoc(ctx, "m0008")
	doc := func(id string, seq int64) *Doc {
		return &Doc{ID: id, ThreadID: "t9", ResourceID: "res", Seq: seq, Role: "user", Content: "back again " + id, CreatedAt: time.Unix(1_800_000_000, 0)}
	}
	s.putDoc(doc("m0008", 1), lex)
	s.putDoc(doc("n0001", 2), lex)
	s.putDoc(doc("m0009", 3), lex) // replaces the snapshot's m0009 in place
	switch {
	case s.docs.get("m0007") != nil:
		t.Error("a removed message is still found")
	case s.docs.get("m0008") == nil || s.docs.get("m0008").doc.Content != "back again m0008":
		t.Error("a message put again after its removal is not found")
	case s.docs.get("n0001") == nil:
		t.Error("a new message is not found")
	case s.docs.get("m0009").doc.Content != "back again m0009":
		t.Error("a replaced message is not found with its new content")
	case s.docs.len() != 300:
		t.Errorf("%d messages, want 300", s.docs.len())
	}
	seen := map[string]int{}
	for id := range s.docs.all() {
		seen[id]++
	}
	if len(seen) != 300 || seen["m0007"] != 0 || seen["m0008"] != 1 || seen["n0001"] != 1 {
		t.Errorf("listed %d ids (m0007 %d, m0008 %d, n0001 %d times)", len(seen), seen["m0007"], seen["m0008"], seen["n0001"])
	}
}

// TestSnapshotTopicDimsForged: a snapshot whose thread vector sum has more
// or fewer dimensions than its vectors is not used, checksums matching:
// the session-topic rule would index the query's vector past its end.
func TestSnapshotTopicDimsForged(t *testing.T) {
	for _, extra := range []int{3, -1} {
		s := fuzzShard(t, 300)
		tp := s.topics["t1"]
		if tp == nil {
			t.Fatal("thread t1 has no vector sum")
		}
		tp.sum = make([]float64, len(tp.sum)+extra)
		tp.sum[0] = 1
		if _, err := loadSnapshotBytes(t, snapshotBytes(t, s)); !errors.Is(err, errSnapshot) {
			t.Errorf("a sum of %d dimensions more: loaded (error %v), want errSnapshot", extra, err)
		}
	}
}
