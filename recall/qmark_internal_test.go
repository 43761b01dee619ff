package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestQmarksFollowContent: the exchange rule's test through the shard's
// remembered question marks (Index.answers) equals AnswersQuestion on
// every entry, after the contents were looked at, then changed (a message
// put again with or without its "?"), then some removed.
func TestQmarksFollowContent(t *testing.T) {
	lex, ix, s := memShard(t)
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 400
	doc := func(i int) *Doc {
		content := fmt.Sprintf("turn %d about the order", i)
		if rng.IntN(3) == 0 {
			content += "?"
		}
		role := []string{"user", "assistant"}[rng.IntN(2)]
		return &Doc{ID: fmt.Sprintf("m%04d", i), ThreadID: fmt.Sprintf("t%d", i/20), ResourceID: "r", Seq: int64(i%20 + 1), Role: role, Content: content}
	}
	for i := range n {
		s.putDoc(doc(i), lex)
	}
	check := func(stage string) {
		t.Helper()
		for _, th := range s.threads {
			for _, e := range th {
				want := e.prev != nil && AnswersQuestion(&e.prev.doc, &e.doc)
				if got := ix.answers(s, e); got != want {
					t.Fatalf("%s: %s answers %v, want %v (before it: %q)", stage, e.doc.ID, got, want, e.prev.doc.Content)
				}
			}
		}
	}
	check("first look")
	check("remembered")
	for i := range n {
		if rng.IntN(2) == 0 {
			s.putDoc(doc(i), lex)
		}
	}
	check("contents changed")
	for i := range n {
		if rng.IntN(5) == 0 {
			s.removeDoc(context.Background(), fmt.Sprintf("m%04d", i))
		}
	}
	check("some removed")
	for i := n; i < 2*n; i++ {
		s.putDoc(doc(i), lex)
	}
	check("grown")
}

// TestQmarksConcurrent: searches fill the marks concurrently while they
// grow (run with -race).
func TestQmarksConcurrent(t *testing.T) {
	const n = 5000
	ents := make([]*entry, n)
	for i := range ents {
		c := "no"
		if i%3 == 0 {
			c = "yes?"
		}
		ents[i] = &entry{doc: Doc{Content: c}, ord: i}
	}
	var m qmarks
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 3 * n {
				o := (k*7 + g*13) % n
				if got, want := m.hasQuestion(ents[o], o+1), o%3 == 0; got != want {
					t.Errorf("ord %d: %v, want %v", o, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
