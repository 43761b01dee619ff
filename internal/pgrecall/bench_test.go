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
// in each mode, without a filter, with one allowing 4,497 messages
// (1 in 22: past directLimit), with a narrow one allowing 2,277 (just
// past it) and with a broad one allowing 45,041 (past broadShare's
// eighth): a channel's cost must not grow with the resource (issue 14),
// a filtered search's grows only with what the filter allows, and a
// broad filter's search costs about an unfiltered one. (The
// corpus's few words each match a quarter of it: the lexical channel's
// matches are many.)
func BenchmarkSearchLargeResource(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	c := newCorpus(rng, []string{"A"}, 1000, 100)
	embedAll(b, c)
	pool := postgres(b, c, false)
	s := newSearcherWith(b, pool, recall.HashEmbedder{}, recall.Tuning{})
	exclude := map[string]bool{}
	for i := 90; i < 100; i++ {
		exclude[fmt.Sprintf("A-t7-%03d", i)] = true
	}
	filters := []struct{ name, filter string }{
		{"false", ""},
		{"true", `{"role":"user","metadata.topic":"travel"}`},
		{"narrow", `{"role":"user","metadata.topic":"travel","seq":{"$lte":50}}`},
		{"broad", `{"role":"user"}`},
	}
	for _, mode := range []recall.Mode{recall.ModeVector, recall.ModeLexical, recall.ModeHybrid} {
		for _, f := range filters {
			b.Run(fmt.Sprintf("%s/filter=%s", mode, f.name), func(b *testing.B) {
				qr := rand.New(rand.NewPCG(1, 1))
				for b.Loop() {
					q := recall.Query{Text: vocab[qr.IntN(len(vocab))] + " " + vocab[qr.IntN(len(vocab))] + " travel", ResourceID: "A", ThreadID: "A-t7", Exclude: exclude,
						Options: recall.Options{Mode: mode, Filter: []byte(f.filter)}}
					if _, err := s.Search(b.Context(), q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
