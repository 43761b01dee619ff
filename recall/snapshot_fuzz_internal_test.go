package recall

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// fuzzShard builds a small shard: three threads, most messages with a
// vector, one with metadata, enough rows for two vector chunks.
func fuzzShard(t testing.TB, n int) *shard {
	t.Helper()
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		d := &Doc{ID: fmt.Sprintf("m%04d", i), ThreadID: fmt.Sprintf("t%d", i%3), ResourceID: "res", Seq: int64(i + 1), Role: "user",
			Content:   fmt.Sprintf("turn %d: we spent two weeks in Lisbon %s, item%d, %d engineers", i, []string{"", "yesterday", "last week", "a month ago"}[i%4], i%17, i%5),
			CreatedAt: time.Unix(1_700_000_000+int64(i)*60, 0).UTC()}
		if i == 3 {
			d.Metadata = map[string]any{"bucket": float64(2)}
		}
		s.putDoc(d, lex)
		if i%7 != 0 {
			if err := s.putVector(context.Background(), d.ID, HashVector(d.Content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.loaded = true
	t.Cleanup(s.unload)
	return s
}

// snapshotBytes encodes s.
func snapshotBytes(t testing.TB, s *shard) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.writeSnapshot(&buf, HashEmbedder{}.ID()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadSnapshotBytes writes b to a file and fills a new shard of "res"
// from it, verifying the vector part as the background check would.
func loadSnapshotBytes(t testing.TB, b []byte) (*shard, error) {
	path := filepath.Join(t.TempDir(), "s.snap")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := openSnapFile(path)
	if err != nil {
		return nil, err
	}
	defer sf.close()
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.unload)
	if _, err := s.readSnapshotFile(sf, HashEmbedder{}, nil); err != nil {
		return nil, err
	}
	if !sf.vectorsMatch() || !blocksSound(s) {
		return nil, errSnapshot
	}
	return s, nil
}

// blocksSound verifies every block of s's contents and term ids
// (snapshot_blocks.go), as their first uses would, and reports whether
// they all match.
func blocksSound(s *shard) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, garbled := p.(errBlockGarbled); !garbled {
				panic(p)
			}
			ok = false
		}
	}()
	s.soundAll()
	return true
}

// FuzzSnapshotLoad: no file makes a load panic, read out of bounds or
// build an inconsistent shard. The fuzzer's bytes replace part of a good
// snapshot; with fixSums the checksums are made to match again, so that
// the structural checks behind them are exercised too (a forged file).
// Without it, a file whose bytes differ from the good one is never used.
func FuzzSnapshotLoad(f *testing.F) {
	good := snapshotBytes(f, fuzzShard(f, 1100))
	f.Add(uint32(0), []byte{}, false)
	f.Add(uint32(40), []byte{0xff}, true)
	f.Add(uint32(9), []byte{1, 0, 0, 0}, true)
	f.Add(uint32(len(good)/2), []byte{0x10}, false)
	f.Add(uint32(len(good)-30), []byte{0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, fixSums bool) {
		b := bytes.Clone(good)
		if len(patch) > 0 {
			at %= uint32(len(b))
			if int(at)+len(patch) > len(b) {
				b = append(b[:at], patch...) // a truncation or an extension
			} else {
				copy(b[at:], patch)
			}
		}
		if fixSums {
			fixChecksums(b)
		}
		s, err := loadSnapshotBytes(t, b)
		if err != nil {
			return
		}
		if !fixSums && !bytes.Equal(b, good) {
			t.Fatalf("a damaged snapshot was used (%d bytes at %d)", len(patch), at)
		}
		checkShard(t, s)
	})
}

// vectorPart returns where b's vector part begins and ends.
func vectorPart(b []byte) (vecOff, vecEnd int) {
	metaEnd := int(binary.LittleEndian.Uint64(b[len(b)-snapFooter:]))
	return (metaEnd + snapAlign - 1) / snapAlign * snapAlign, len(b) - snapFooter
}

// fixChecksums makes b's checksums match its bytes when its footer's
// bounds allow.
func fixChecksums(b []byte) {
	if len(b) < snapFooter {
		return
	}
	foot := b[len(b)-snapFooter:]
	metaEnd := binary.LittleEndian.Uint64(foot)
	if metaEnd > uint64(len(b)-snapFooter) {
		return
	}
	meta := b[:metaEnd]
	if g, ok := readRegions(meta); ok {
		fixBlocks(meta, g.cFrom, g.cTo)
		fixBlocks(meta, g.tFrom, g.tTo)
	}
	binary.LittleEndian.PutUint32(foot[8:], partSum(meta, 0))
	vecOff := (metaEnd + snapAlign - 1) / snapAlign * snapAlign
	if vecOff <= uint64(len(b)-snapFooter) {
		binary.LittleEndian.PutUint32(foot[12:], crc32.Checksum(b[vecOff:len(b)-snapFooter], castagnoli))
	}
}

// fixBlocks sets the sums of the blocks of meta's region [from, to) in
// their table (format 10: snapshot_blocks.go), if it lies in meta.
func fixBlocks(meta []byte, from, to int64) {
	n := int64(blocksOf(int(to - from)))
	at := (to + 3) / 4 * 4
	if at+4*n > int64(len(meta)) {
		return
	}
	for k := range n {
		lo := from + k*sumBlock
		binary.LittleEndian.PutUint32(meta[at+4*k:], crc32.Checksum(meta[lo:min(lo+sumBlock, to)], castagnoli))
	}
}

// checkShard checks the invariants a search relies on, then searches.
func checkShard(t *testing.T, s *shard) {
	t.Helper()
	for id, e := range s.docs.all() {
		if s.docs.get(id) != e {
			t.Fatalf("message %q: not found by its id", id)
		}
		if e.doc.ID != id || e.vslot < 0 || e.vslot > s.vx.len() || (e.vslot > 0 && s.vx.ents[e.vslot-1] != e) {
			t.Fatalf("message %q: inconsistent slot %d", id, e.vslot)
		}
		for _, term := range e.terms {
			if int(term) >= len(s.stats.df) {
				t.Fatalf("message %q: term %d out of range", id, term)
			}
		}
	}
	if n := len(slices.Collect(maps.Keys(maps.Collect(s.docs.all())))); n != s.docs.len() || n != s.stats.n {
		t.Fatalf("%d messages, counted %d, statistics of %d", n, s.docs.len(), s.stats.n)
	}
	if x := s.vx; x != nil {
		if len(x.chunks)*chunkRows < x.len() || len(x.scales) != x.len() {
			t.Fatalf("%d rows in %d chunks, %d scales", x.len(), len(x.chunks), len(x.scales))
		}
		x.search(HashVector("two weeks in Lisbon"), 10, nil)
	}
}

// TestSnapshotRoundTrip: a shard written and read back is the same shard
// (a snapshot of two vector chunks, messages with and without vectors).
func TestSnapshotRoundTrip(t *testing.T) {
	s := fuzzShard(t, 1100)
	got, err := loadSnapshotBytes(t, snapshotBytes(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if got.docs.len() != s.docs.len() || got.vx.len() != s.vx.len() || got.typeDF != s.typeDF || got.vx.zeros != s.vx.zeros {
		t.Fatalf("read %d messages, %d vectors, types %v; wrote %d, %d, %v", got.docs.len(), got.vx.len(), got.typeDF, s.docs.len(), s.vx.len(), s.typeDF)
	}
	for id, e := range s.docs.all() {
		g := got.docs.get(id)
		if g == nil || g.doc.Content != e.doc.Content || g.atypes != e.atypes || g.ref != e.ref || len(g.terms) != len(e.terms) || (g.vslot == 0) != (e.vslot == 0) {
			t.Fatalf("message %s differs", id)
		}
		if e.vslot > 0 && !bytes.Equal(f32bytes(got.vx.vector(g)), f32bytes(s.vx.vector(e))) {
			t.Fatalf("message %s: vector differs", id)
		}
	}
	if a, b := postingsByTerm(s), postingsByTerm(got); !maps.Equal(a, b) {
		t.Fatalf("postings differ: %d terms written, %d read", len(a), len(b))
	}
	checkShard(t, got)
}

// postingsByTerm returns each term's postings as "id:tf" strings, sorted
// (ords differ between a build and a load).
func postingsByTerm(s *shard) map[string]string {
	out := map[string]string{}
	for term, id := range s.stats.ids.all() {
		if int(id) >= s.post.terms() || len(s.post.list(id)) == 0 {
			continue
		}
		var ps []string
		for _, v := range s.post.list(id) {
			ps = append(ps, fmt.Sprintf("%s:%d", s.post.byOrd[v>>tfBits].doc.ID, s.post.tf(v, id, s.termSums)))
		}
		slices.Sort(ps)
		out[term] = fmt.Sprint(ps)
	}
	return out
}

func f32bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// TestSnapshotChunkLayout pins the vector chunks' memory layout, which
// snapshots hold as it is: if it changes (vecindex.go, vecsigns.go), bump
// snapVersion and update the hash here, so that older files are rebuilt
// instead of read with the wrong layout.
func TestSnapshotChunkLayout(t *testing.T) {
	x := newVecIndex(HashDims)
	defer x.free()
	for i := range 1500 {
		x.put(&entry{doc: Doc{ID: fmt.Sprint(i)}, ord: i}, HashVector(fmt.Sprintf("turn %d about topic%d", i, i%13)))
	}
	h := sha256.New()
	for _, c := range x.chunks {
		h.Write(c.mem[:x.chunkBytes()])
	}
	const want = "88b03f483508f2133de39c27"
	if got := hex.EncodeToString(h.Sum(nil)[:12]); got != want || snapVersion != 11 {
		t.Fatalf("vector chunk layout hash %s (snapshot version %d), pinned %s at version 11: bump snapVersion and update the pin", got, snapVersion, want)
	}
}

// TestAnswerRulesPinned pins answerBits's and relativeDate's results on a
// set of probes: a change to the answer-type or relative-date rules
// changes stored snapshot data, so it must bump answerRulesVersion (and
// update the pin here).
func TestAnswerRulesPinned(t *testing.T) {
	probes := []string{"I spent two weeks traveling", "I went to the support group yesterday", "I lead a team of five engineers",
		"in May 2022 we moved", "three more days", "last Friday night", "it costs 40 dollars", "a couple of months ago",
		"we may go in March", "nothing here", "1999 was a year", "twenty years", "next weekend", "on march 3",
		"last week", "last weekend", "a few days ago", "two weeks ago", "3 months ago", "the day before yesterday", "this past weekend"}
	said := time.Date(2023, time.May, 10, 15, 0, 0, 0, time.UTC)
	h := sha256.New()
	for _, p := range probes {
		r := relativeDate(p, said, nil)
		fmt.Fprintf(h, "%d %d %d;", answerBits(p), r.from, r.n)
	}
	const want = "6f66223f981c04d0abb3a04d"
	if got := hex.EncodeToString(h.Sum(nil)[:12]); got != want || answerRulesVersion != 2 {
		t.Fatalf("answer-type and relative-date probes hash %s (rules version %d), pinned %s at version 2: bump answerRulesVersion and update the pin", got, answerRulesVersion, want)
	}
}

// TestSnapshotUnverifiedVectors: before its background check, a shard
// loaded from a snapshot whose vector part is damaged (a float32 value
// made NaN, another huge) scores no vector as a number that is not finite,
// reads its clean slabs' vectors from the file, and a write to a slab
// leaves the file's bytes for the slab's memory.
func TestSnapshotUnverifiedVectors(t *testing.T) {
	s := fuzzShard(t, 1100)
	b := snapshotBytes(t, s)
	vecOff, _ := vectorPart(b)
	x := s.vx
	base := uintptr(unsafe.Pointer(&x.chunks[0].mem[0]))
	for i, bits := range map[int]uint32{0: 0x7fc00000, 5: 0x7f000000} { // NaN, 1.7e38
		off := int(uintptr(unsafe.Pointer(&x.vec(i)[0])) - base)
		binary.LittleEndian.PutUint32(b[vecOff+off:], bits)
	}
	path := filepath.Join(t.TempDir(), "s.snap")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := openSnapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := newShard("res", nil, false)
	if err := got.reset(); err != nil {
		t.Fatal(err)
	}
	defer got.unload()
	if _, err := got.readSnapshotFile(sf, HashEmbedder{}, nil); err != nil {
		t.Fatal(err)
	}
	if sf.vectorsMatch() {
		t.Fatal("the damaged vector part passed its check")
	}
	sf.close()
	y := got.vx
	if !y.chunks[0].fileBacked() {
		t.Fatal("a slab mapped from the snapshot is not read from the file")
	}
	for _, i := range []int{0, 5} {
		for _, v := range y.rowVec(i, nil) {
			if v != 0 {
				t.Fatalf("row %d: a damaged vector is read as %v", i, v)
			}
		}
	}
	q := HashVector(got.vx.ents[0].doc.Content)
	for _, h := range y.search(q, 20, nil) {
		if math.IsNaN(h.score) || math.IsInf(h.score, 0) {
			t.Fatalf("hit %s scored %v", h.id, h.score)
		}
	}
	if want := x.vec(7); !slices.Equal(y.rowVec(7, nil), want) {
		t.Fatal("row 7 read from the file differs")
	}
	e := y.ents[7]
	got.removeDoc(context.Background(), e.doc.ID)
	if y.chunks[0].fileBacked() {
		t.Fatal("a slab written to is still read from the file")
	}
}

// TestSnapshotSchedule: a resource growing from nothing to 100,000
// messages gets a snapshot at sizes doubling from SnapshotMin: 9 of them,
// 131k messages written in all from 256 (5 and 127k from 4,096; due at
// half its size they were 8 and 202k), and one growing past
// snapshotMaxBehind one every 100,000.
func TestSnapshotSchedule(t *testing.T) {
	sn := &snapshots{min: DefaultSnapshotMin}
	grow := func(from, to int) (writes int, written int) {
		size, n := from, 0
		for m := from; m < to; m++ {
			n++
			if size+n >= sn.min && n >= sn.threshold(size) {
				writes++
				size += n
				written += size
				n = 0
			}
		}
		return writes, written
	}
	w, total := grow(0, 100_000)
	t.Logf("to 100k: %d snapshots, %d messages written", w, total)
	if w > 9 || total > 131_000 {
		t.Errorf("to 100k: %d snapshots of %d messages in all, want at most 9 and 131,000", w, total)
	}
	if w, _ := grow(1_000_000, 1_300_000); w != 3 {
		t.Errorf("from 1M to 1.3M: %d snapshots, want 3 (every snapshotMaxBehind)", w)
	}
}

// TestSnapshotDueAtClose: at close, a resource never loaded since Open with
// a few hundred writes is left out unless it has a snapshot file to catch
// up (it cannot be over SnapshotMin without one); a known large resource
// and a resource with SnapshotMin writes are due. The minimum is 4,096
// here, above snapshotCloseMin, where such a resource exists (the default,
// 256, is snapshotCloseMin).
func TestSnapshotDueAtClose(t *testing.T) {
	const min = 4096
	sn := &snapshots{dir: t.TempDir(), min: min, emb: HashEmbedder{},
		changes: map[string]int{"small": 300, "filed": 300, "grown": min, "known": 300},
		sizes:   map[string]int{"known": 50_000}}
	if err := os.WriteFile(sn.path("filed"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := sn.due(true)
	slices.Sort(got)
	if want := []string{"filed", "grown", "known"}; !slices.Equal(got, want) {
		t.Errorf("due at close = %v, want %v", got, want)
	}
	if got := sn.due(false); !slices.Equal(got, []string{"grown"}) {
		t.Errorf("due = %v, want [grown]", got)
	}
}

// TestDocTextPinned: the text WithToolCalls gives a message's tool calls
// is pinned to docTextVersion, as TestAnswerRulesPinned pins the answer
// rules: snapshots store that text and its terms, so a change to it must
// bump docTextVersion (older snapshots are then rebuilt, not served with
// the old words) and update the pin.
func TestDocTextPinned(t *testing.T) {
	probes := []struct{ content, calls string }{
		{"", `[{"id":"c1","name":"weather","arguments":{"city":"Z\u00fcrich","n":2}}]`},
		{"let me check", `[{"id":"c1","name":"quote","arguments":{"crate":"A","rush":true,"legs":[1,2.5,null]}}]`},
		{"two calls", `[{"id":"a","name":"f","arguments":{}},{"id":"b","name":"g","arguments":{"q":"\u003cb\u003e \"x\" a\\b"}}]`},
		{"no calls", ``},
		{"invalid", `[{"id":`},
		{"", `[{"id":"c","name":"search","arguments":"not json {"}]`},
		{"", `[{"id":"c","name":"nested","arguments":{"a":{"b":["deep",{"c":"deeper"}]}}}]`},
	}
	h := sha256.New()
	for _, p := range probes {
		fmt.Fprintf(h, "%q;", WithToolCalls(p.content, []byte(p.calls)))
	}
	const want = "b5520f08cf1682cd9a36b37e"
	if got := hex.EncodeToString(h.Sum(nil)[:12]); got != want || docTextVersion != 2 {
		t.Fatalf("tool-call text probes hash %s (text version %d), pinned %s at version 2: bump docTextVersion and update the pin", got, docTextVersion, want)
	}
}
