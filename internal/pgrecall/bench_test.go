package pgrecall_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkSearch times one search of a 10,000-message resource (100
// threads of 100 turns) on each backend, as LoadContext searches: topK 5,
// the thread's 10 latest turns excluded, in each mode, and with a filter.
func BenchmarkSearch(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	c := newCorpus(rng, []string{"A"}, 100, 100)
	pool := postgres(b, c, false)
	backends := []struct {
		name string
		s    searcher
	}{
		{"sqlite", sqliteIndex(b, c, recall.Tuning{})},
		{"postgres", newSearcherWith(b, pool, recall.HashEmbedder{}, recall.Tuning{})},
	}
	exclude := map[string]bool{}
	for i := 90; i < 100; i++ {
		exclude[fmt.Sprintf("A-t7-%03d", i)] = true
	}
	for _, mode := range []recall.Mode{recall.ModeHybrid, recall.ModeLexical, recall.ModeVector} {
		for _, filter := range []string{"", `{"role":"user","metadata.topic":"travel"}`} {
			for _, be := range backends {
				name := fmt.Sprintf("%s/%s/filter=%v", be.name, mode, filter != "")
				b.Run(name, func(b *testing.B) {
					qr := rand.New(rand.NewPCG(1, 1))
					for b.Loop() {
						q := recall.Query{Text: vocab[qr.IntN(len(vocab))] + " " + vocab[qr.IntN(len(vocab))] + " travel", ResourceID: "A", ThreadID: "A-t7", Exclude: exclude,
							Options: recall.Options{Mode: mode, Filter: []byte(filter)}}
						if _, err := be.s.Search(b.Context(), q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkSearchLargeResource times one search of a 100,000-message
// resource (1,000 threads of 100 turns, every one embedded) on Postgres,
// in vector mode, with and without a filter: the vector channel's cost
// must not grow with the resource (issue 14). (Hybrid mode's lexical
// channel reads a large part of this corpus, whose few words each match a
// quarter of it, and is not what is measured here.)
func BenchmarkSearchLargeResource(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	c := newCorpus(rng, []string{"A"}, 1000, 100)
	for i := range c.msgs {
		if c.msgs[i].vec == nil {
			vs, err := c.emb.Embed(b.Context(), []string{c.msgs[i].doc.Text()})
			if err != nil {
				b.Fatal(err)
			}
			c.msgs[i].vec = vs[0]
		}
	}
	pool := postgres(b, c, false)
	s := newSearcherWith(b, pool, recall.HashEmbedder{}, recall.Tuning{})
	exclude := map[string]bool{}
	for i := 90; i < 100; i++ {
		exclude[fmt.Sprintf("A-t7-%03d", i)] = true
	}
	for _, mode := range []recall.Mode{recall.ModeVector} {
		for _, filter := range []string{"", `{"role":"user","metadata.topic":"travel"}`} {
			b.Run(fmt.Sprintf("%s/filter=%v", mode, filter != ""), func(b *testing.B) {
				qr := rand.New(rand.NewPCG(1, 1))
				for b.Loop() {
					q := recall.Query{Text: vocab[qr.IntN(len(vocab))] + " " + vocab[qr.IntN(len(vocab))] + " travel", ResourceID: "A", ThreadID: "A-t7", Exclude: exclude,
						Options: recall.Options{Mode: mode, Filter: []byte(filter)}}
					if _, err := s.Search(b.Context(), q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
