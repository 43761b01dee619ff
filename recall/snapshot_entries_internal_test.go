package recall

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// Every test's load of a snapshot of two threads or more decodes its
// entries in two runs at once (snapshot_entries.go), as a large shard's
// does; TestSnapshotDecodeRuns compares it with one run.
func init() { parallelMin = 2 }

// entriesDump is what a load made of a snapshot's messages, by ord.
func entriesDump(s *shard) []string {
	var out []string
	for o, e := range s.docs.file {
		d := e.doc
		post, pp, pn := postDump(&s.post, o)
		var prev, next string
		if e.prev != nil {
			prev = e.prev.doc.ID
		}
		if e.next != nil {
			next = e.next.doc.ID
		}
		out = append(out, fmt.Sprintf("%d %q %q %q %d %q %q %q %v %s %v %d %d %v %q %q %v %q %q %v",
			o, d.ID, d.ThreadID, d.ResourceID, d.Seq, d.Role, d.Name, d.Content, d.Metadata, d.CreatedAt, e.terms,
			e.vslot, e.atypes, e.ref, prev, next, post, pp, pn, s.post.byOrd[o] == e))
	}
	for _, id := range slices.Sorted(maps.Keys(s.threads)) {
		var ids []string
		for _, e := range s.threads[id] {
			ids = append(ids, e.doc.ID)
		}
		out = append(out, fmt.Sprintf("thread %q %q", id, ids))
	}
	for i, e := range s.vx.ents {
		out = append(out, fmt.Sprintf("slot %d %q", i, e.doc.ID))
	}
	return append(out, fmt.Sprintf("types %v ords %d n %d holds %d", s.typeDF, s.ords, s.docs.n, len(s.off.keep)))
}

// TestSnapshotDecodeRuns: a snapshot's entries decoded in two runs at once
// are those decoded in one, with the same neighbours, threads, vector
// slots, answer-type counts and holds.
func TestSnapshotDecodeRuns(t *testing.T) {
	b := snapshotBytes(t, fuzzShard(t, 1100))
	load := func(min int) []string {
		defer func(old int) { parallelMin = old }(parallelMin)
		parallelMin = min
		s, err := loadSnapshotBytes(t, b)
		if err != nil {
			t.Fatal(err)
		}
		return entriesDump(s)
	}
	one, two := load(1<<30), load(2)
	if !reflect.DeepEqual(one, two) {
		for i := range min(len(one), len(two)) {
			if one[i] != two[i] {
				t.Fatalf("two runs made %s, one run %s", two[i], one[i])
			}
		}
		t.Fatalf("two runs made %d lines, one run %d", len(two), len(one))
	}
}

// TestSnapshotDecodeRunsForged: a message out of seq order, or a thread
// that runs past the messages, under checksums that match, is refused
// whichever run decodes it.
func TestSnapshotDecodeRunsForged(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 1100))
	off, _, _, n := columnsAt(t, good)
	for _, o := range []int{1, n/2 + 3, n - 1} {
		b := bytes.Clone(good)
		seq := off + o*snapMsgSize // a record's seq, the first field
		binary.LittleEndian.PutUint64(b[seq:], 0)
		fixChecksums(b)
		if _, err := loadSnapshotBytes(t, b); err == nil {
			t.Errorf("message %d out of seq order: the snapshot was used", o)
		}
	}
}

// TestSnapshotChecksBeside: what is checked beside the decoding of the
// entries (snapReader.later: the postings, the term ids' range, the
// orders of the ids and terms) refuses a forged snapshot with two
// goroutines and with one.
func TestSnapshotChecksBeside(t *testing.T) {
	good := snapshotBytes(t, fuzzShard(t, 300))
	offs, terms, n := postingsAt(t, good)
	list := func(i int) int { return offs + 4*(terms+1) + 4*i } // term 0's i-th posting
	u32 := func(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[list(i):]) }
	if c := binary.LittleEndian.Uint32(good[offs+4:]); c < 2 {
		t.Fatalf("term 0 has %d postings, want 2 or more", c)
	}
	for _, min := range []int{2, 1 << 30} {
		func() {
			defer func(old int) { parallelMin = old }(parallelMin)
			parallelMin = min
			for name, forge := range map[string]func([]byte){
				"postings not ascending": func(b []byte) { binary.LittleEndian.PutUint32(b[list(1):], u32(b, 0)) },
				"posting out of range":   func(b []byte) { binary.LittleEndian.PutUint32(b[list(1):], uint32(n)<<tfBits|1) },
				"posting of no count":    func(b []byte) { binary.LittleEndian.PutUint32(b[list(1):], u32(b, 1)&^tfMax) },
			} {
				b := bytes.Clone(good)
				forge(b)
				fixChecksums(b)
				if _, err := loadSnapshotBytes(t, b); err == nil {
					t.Errorf("%s (parallelMin %d): the forged snapshot was used", name, min)
				}
			}
			TestSnapshotIDsForged(t)
			TestSnapshotTermsForged(t)
			TestSnapshotColumnsForged(t)
		}()
	}
}

// postingsAt returns where the postings offsets of snapshot b begin (v11:
// term 0's, 0; the lists follow the terms+1 offsets), the number of terms
// and how many messages there are.
func postingsAt(t *testing.T, b []byte) (offs, terms, n int) {
	t.Helper()
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	defer s.unload()
	r := &snapReader{b: b[:binary.LittleEndian.Uint64(b[len(b)-snapFooter:])]}
	r.take(len(snapMagic) + 4)
	dims, _, err := s.readHeader(r, HashEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.readStats(r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.readIDs(r); err != nil {
		t.Fatal(err)
	}
	n = len(s.docs.file)
	if err := s.readOrdArrays(r, n); err != nil {
		t.Fatal(err)
	}
	if _, err := s.readMsgColumns(r, n); err != nil {
		t.Fatal(err)
	}
	if _, err := s.readSpans(r, n, dims); err != nil {
		t.Fatal(err)
	}
	return (r.off + 3) / 4 * 4, len(s.stats.df), n
}
