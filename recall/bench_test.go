package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// benchDocs makes n messages in one resource from a vocabulary of 50 stems
// × 6 suffixes plus filler words, 6–20 words each, as in
// ../shared/DEPENDENCIES.md.
func benchDocs(n int) ([]recall.Doc, []string) {
	stems := strings.Fields("ship quote crate price order refund parcel invoice garden kiwi orchard tractor harvest ticket flight hotel river mountain novel poem guitar piano recipe bread cheese coffee train bicycle camera lens paint canvas doctor nurse clinic school lesson teacher market stock bond budget salary rent house roof window door lamp")
	var vocab []string
	for _, s := range stems {
		for _, x := range []string{"", "s", "ing", "ed", "er", "ly"} {
			vocab = append(vocab, s+x)
		}
	}
	vocab = append(vocab, strings.Fields("the a and of to in we you it is was for on with that this")...)
	r := rand.New(rand.NewPCG(5, 5))
	docs := make([]recall.Doc, n)
	for i := range docs {
		ws := make([]string, 6+r.IntN(15))
		for j := range ws {
			ws[j] = vocab[r.IntN(len(vocab))]
		}
		docs[i] = recall.Doc{
			ID: fmt.Sprintf("m%07d", i), ThreadID: fmt.Sprintf("t%03d", i%100), ResourceID: "r", Seq: int64(i/100 + 1),
			Role: []string{"user", "assistant"}[i%2], Content: strings.Join(ws, " "), CreatedAt: time.Unix(int64(i), 0),
		}
	}
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = vocab[r.IntN(300)] + " " + vocab[r.IntN(300)] + " " + vocab[r.IntN(300)]
	}
	return docs, queries
}

// BenchmarkSearch measures Index.Search per mode with n messages in one
// resource; p50/p99 are reported per query (setup outside the loop, the
// resource loaded before timing).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			docs, queries := benchDocs(n)
			f := newFixture(b, nil)
			for start := 0; start < len(docs); start += 5000 {
				f.add(b, docs[start:min(start+5000, len(docs))])
			}
			ctx := context.Background()
			if _, err := f.ix.Search(ctx, recall.Query{Text: "warm", ResourceID: "r"}); err != nil {
				b.Fatal(err)
			}
			for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
				b.Run(string(mode), func(b *testing.B) {
					var lat []time.Duration
					i := 0
					b.ReportAllocs()
					for b.Loop() {
						t0 := time.Now()
						if _, err := f.ix.Search(ctx, recall.Query{Text: queries[i%len(queries)], ResourceID: "r", Options: recall.Options{TopK: 10, Mode: mode}}); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(t0))
						i++
					}
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		})
	}
}
