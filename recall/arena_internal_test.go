package recall

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// TestArenaErase: a shard keeps its messages' contents and term ids in its
// arena; replacing a message or removing it zeroes the old bytes there (no
// copy of an erased text stays in memory), and the other messages keep
// theirs. A content over arenaMax and its term ids lie in the arena too
// (they stayed on the heap, where erasure left them, and a long resource's
// load doubled their cost: BENCHMARKS.md "A long resource's first load
// from its rows").
func TestArenaErase(t *testing.T) {
	lex, err := OpenLexical(t.TempDir() + "/lexical")
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	s := newShard("r", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	defer s.unload()
	doc := func(i int, content string) *Doc {
		return &Doc{ID: fmt.Sprintf("m%04d", i), ThreadID: "t", ResourceID: "r", Seq: int64(i), Role: "user", Content: content}
	}
	pad := strings.Repeat(" and some more words", 10)
	for i := range 5000 {
		s.putDoc(doc(i, fmt.Sprintf("turn %d about zebra%dquux and the weather%s", i, i, pad)), lex)
	}
	big := strings.Repeat("large ", arenaMax/5) + "zebrabigquux"
	s.putDoc(doc(5000, big), lex)
	bigTerms := make([]string, arenaMax/3) // term ids over arenaMax bytes
	for i := range bigTerms {
		bigTerms[i] = fmt.Sprintf("w%d", i)
	}
	s.putDoc(doc(5001, strings.Join(bigTerms, " ")), lex)
	if len(s.text.chunks) < 2 {
		t.Fatalf("%d arena chunks for 5000 messages, want at least 2", len(s.text.chunks))
	}
	inArena := func(needle []byte) bool {
		for _, c := range s.text.chunks {
			if bytes.Contains(c.mem, needle) {
				return true
			}
		}
		return false
	}
	termBytes := func(e *entry) []byte {
		return bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(&e.terms[0])), 4*len(e.terms)))
	}
	replaced, removed := s.docs.get("m0007"), s.docs.get("m4999")
	oldTerms, goneTerms := termBytes(replaced), termBytes(removed)
	if !inArena([]byte("zebra7quux")) || !inArena(oldTerms) {
		t.Fatal("the content and term ids of m0007 are not in the arena")
	}
	s.putDoc(doc(7, "an edited turn"), lex)
	s.removeDoc(context.Background(), "m4999")
	for _, gone := range []string{"zebra7quux", "zebra4999quux"} {
		if inArena([]byte(gone)) {
			t.Errorf("%q is still in the arena", gone)
		}
	}
	if inArena(oldTerms) || inArena(goneTerms) {
		t.Error("the term ids of a replaced or removed message are still in the arena")
	}
	if got := s.docs.get("m0007").doc.Content; got != "an edited turn" {
		t.Errorf("m0007: %q", got)
	}
	if got := s.docs.get("m1234").doc.Content; got != "turn 1234 about zebra1234quux and the weather"+pad {
		t.Errorf("m1234: %q", got)
	}
	if got := s.docs.get("m5000").doc.Content; got != big {
		t.Error("the large content is not kept whole")
	}
	longTerms := termBytes(s.docs.get("m5001"))
	if len(longTerms) <= arenaMax {
		t.Fatalf("m5001 has %d bytes of term ids, want over %d", len(longTerms), arenaMax)
	}
	if !inArena([]byte("zebrabigquux")) || !inArena(longTerms) {
		t.Fatal("the large content or term ids are not in the arena")
	}
	s.removeDoc(context.Background(), "m5000")
	s.removeDoc(context.Background(), "m5001")
	if inArena([]byte("zebrabigquux")) || inArena(longTerms) {
		t.Error("the large content or term ids of a removed message are still in the arena")
	}
}
