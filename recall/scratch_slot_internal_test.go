package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// allocatedBy returns the bytes the heap allocated while f ran (f runs on
// this goroutine only).
func allocatedBy(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestScratchKeptAcrossGC: the scratches sized by the shard (the lexical
// channel's, 20 bytes an ord; the first pass's dots, 4 bytes a row) are
// not allocated again by a search after garbage collections emptied the
// pools (scratchSlot): the shard and the vector index keep them.
func TestScratchKeptAcrossGC(t *testing.T) {
	lex, ix, s := memShard(t)
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 6000
	x := newVecIndex(HashDims)
	defer x.free()
	for i := range n {
		words := []string{"order"}
		for range 3 + rng.IntN(8) {
			words = append(words, postingsWords[rng.IntN(len(postingsWords))])
		}
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i/50), ResourceID: "r", Seq: int64(i%50 + 1), Role: "user", Content: strings.Join(words, " ")}
		s.putDoc(&d, lex)
		x.put(&entry{doc: d, ord: i}, HashVector(d.Content))
	}
	o, err := Options{TopK: 5, Mode: ModeLexical}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	q := ix.channelQuery(s, Query{Text: "the order of " + strings.Join(postingsWords[:4], " "), ResourceID: "r"}, o, "", nil)
	vq := x.query(normalised(HashVector(q.text)))
	search := func() {
		ix.lexicalPostings(q)
		x.searchQuery(context.Background(), vq, 110, nil)
	}
	search()
	runtime.GC()
	runtime.GC()
	// The lexical scratch alone is 20 bytes a scored message (every one
	// here), the dots 4 a row: 4 × n is less than either made again.
	if got, most := allocatedBy(search), uint64(4*n); got > most {
		t.Fatalf("a search after two collections allocated %d bytes, want at most %d (a scratch made again)", got, most)
	}
}

// TestLexScratchZeroedAsync: a lexical scratch released with at least
// zeroAsyncMin scored messages is zeroed on a goroutine of its own; whoever
// takes it next, from the slot or the pool, finds no own score, mask or
// candidate mark (run with -race: the taker waits for that goroutine).
func TestLexScratchZeroedAsync(t *testing.T) {
	const ords = 3 * zeroAsyncMin
	var slot scratchSlot[lexScratch]
	rng := rand.New(rand.NewPCG(14, 7))
	for round := range 20 {
		sc := takeLexScratch(&slot, ords, true)
		if len(sc.touched) != 0 || len(sc.own) != 0 || len(sc.mask) != 0 {
			t.Fatalf("round %d: %d own scores, %d masks left by the last search", round, len(sc.own), len(sc.mask))
		}
		for o := range int32(ords) {
			if sc.at(o) >= 0 || sc.see(o) {
				t.Fatalf("round %d: ord %d scored or seen by the last search", round, o)
			}
		}
		clear(sc.seen)                                 // see marked every ord
		n := zeroAsyncMin/2 + rng.IntN(2*zeroAsyncMin) // either side of the limit
		picked := rng.Perm(ords)[:n]
		slices.Sort(picked)
		for _, o := range picked {
			sc.appendOwn(int32(o), 1+rng.Float64(), 1|rng.Uint64())
			sc.see(int32(o))
		}
		sc.index()
		for i, o := range picked {
			if got := sc.at(int32(o)); got != i {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, o, got, i)
			}
		}
		if round%3 == 2 {
			sc.keep = nil // back to the pool
		}
		sc.release()
	}
}
