package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// benchWords is a vocabulary for synthetic messages: 50 stems × 6 suffixes
// plus filler words, as in ../shared/DEPENDENCIES.md.
var benchWords = func() []string {
	stems := strings.Fields("ship quote crate price order refund parcel invoice garden kiwi orchard tractor harvest ticket flight hotel river mountain novel poem guitar piano recipe bread cheese coffee train bicycle camera lens paint canvas doctor nurse clinic school lesson teacher market stock bond budget salary rent house roof window door lamp")
	suffixes := []string{"", "s", "ing", "ed", "er", "ly"}
	var out []string
	for _, s := range stems {
		for _, x := range suffixes {
			out = append(out, s+x)
		}
	}
	return append(out, strings.Fields("the a and of to in we you it is was for on with that this")...)
}()

func benchText(r *rand.Rand) string {
	n := 6 + r.IntN(15)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(ws, " ")
}

// BenchmarkRecallAppend measures one Append of one message with the outbox
// drainer running (both indexes maintained in the background).
func BenchmarkRecallAppend(b *testing.B) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 1))
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: benchText(r)}}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRecallIngest appends sessions of 20 messages and waits until both
// indexes have caught up; it reports messages per second.
func BenchmarkRecallIngest(b *testing.B) {
	ctx := context.Background()
	const total = 5000
	for b.Loop() {
		b.StopTimer()
		e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(2, 2))
		b.StartTimer()
		t0 := time.Now()
		for s := 0; s < total/20; s++ {
			msgs := make([]engine.Message, 20)
			for i := range msgs {
				msgs[i] = engine.Message{Role: []string{"user", "assistant"}[i%2], Content: benchText(r)}
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", s), ResourceID: "r", Messages: msgs}); err != nil {
				b.Fatal(err)
			}
		}
		appended := time.Since(t0)
		if err := e.SyncIndexes(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(total/time.Since(t0).Seconds(), "msgs/s")
		b.ReportMetric(appended.Seconds(), "appends-s")
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
}

// BenchmarkRecallSearch measures search latency per mode with n messages in one
// resource (setup outside the loop; the resource is loaded first).
func BenchmarkRecallSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("100k in -short")
			}
			ctx := context.Background()
			e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			r := rand.New(rand.NewPCG(3, 3))
			for s := 0; s < n/500; s++ {
				msgs := make([]engine.Message, 500)
				for i := range msgs {
					msgs[i] = engine.Message{Role: []string{"user", "assistant"}[i%2], Content: benchText(r)}
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", s%50), ResourceID: "r", Messages: msgs}); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.SyncIndexes(ctx); err != nil {
				b.Fatal(err)
			}
			queries := make([]string, 200)
			for i := range queries {
				queries[i] = benchWords[r.IntN(300)] + " " + benchWords[r.IntN(300)] + " " + benchWords[r.IntN(300)]
			}
			if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "warm"}); err != nil {
				b.Fatal(err)
			}
			for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
				b.Run(string(mode), func(b *testing.B) {
					var lat []time.Duration
					i := 0
					for b.Loop() {
						t0 := time.Now()
						if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: queries[i%len(queries)], Options: recall.Options{TopK: 10, Mode: mode}}); err != nil {
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
