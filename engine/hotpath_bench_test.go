package engine_test

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// benchSizes are the corpus sizes of the size-parameterised benchmarks:
// one resource holding that many synthetic messages (internal/enginetest/synth).
// Building a fixture ingests the corpus first (about a minute per 100k on
// two cores), so the default stays small; BENCHMARKS.md uses
// -mnemo.sizes=1k,10k,100k.
var benchSizes = flag.String("mnemo.sizes", "1k,10k", "comma-separated corpus sizes of the engine benchmarks (k = 1000)")

func sizes(b *testing.B) []int {
	var out []int
	for _, f := range strings.Split(*benchSizes, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		mult := 1
		if strings.HasSuffix(f, "k") {
			f, mult = strings.TrimSuffix(f, "k"), 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			b.Fatalf("-mnemo.sizes: bad size %q", f)
		}
		out = append(out, n*mult)
	}
	return out
}

func sizeName(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// benchFixture is an engine holding one resource of a synthetic corpus,
// indexes caught up and the resource loaded, with queries over it.
type benchFixture struct {
	e       *engine.Engine
	queries []synth.Query
}

// forSizes runs fn as one sub-benchmark per size, each on its own fixture
// (built outside the timed loop).
func forSizes(b *testing.B, fn func(b *testing.B, f *benchFixture)) {
	for _, n := range sizes(b) {
		b.Run(sizeName(n), func(b *testing.B) {
			fn(b, newBenchFixture(b, n))
		})
	}
}

func newBenchFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	ctx := context.Background()
	c, err := synth.New(synth.Config{Messages: n, Resources: 1})
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	for th := range c.All() {
		for from := 0; from < len(th.Messages); from += 200 {
			msgs := th.Messages[from:min(from+200, len(th.Messages))]
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.ID, ResourceID: th.ResourceID, Messages: msgs}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{e: e}
	for i := range 200 {
		f.queries = append(f.queries, c.Query(i, 1))
	}
	if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: synth.ResourceID(0), Query: "warm up"}); err != nil {
		b.Fatal(err)
	}
	return f
}

// benchRecall are issue 8's recall options: scope resource, topK 5, range 1.
func benchRecall(mode recall.Mode) *recall.Options {
	return &recall.Options{TopK: 5, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource, Mode: mode}
}

// BenchmarkLoadContext measures context composition with recall on (scope
// resource, topK 5, range 1, recent 10), the memctx record written.
func BenchmarkLoadContext(b *testing.B) {
	forSizes(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := f.queries[i%len(f.queries)]
			if _, err := f.e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("bench-%d", i%len(f.queries)), ReplaceRun: true,
				ThreadID: q.ThreadID, ResourceID: q.ResourceID, Query: q.Text, RecentN: 10, Recall: benchRecall("")}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkSearch measures one search per channel (lexical, vector,
// hybrid with fusion), range expansion included.
func BenchmarkSearch(b *testing.B) {
	forSizes(b, func(b *testing.B, f *benchFixture) {
		ctx := context.Background()
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
			b.Run(string(mode), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					q := f.queries[i%len(f.queries)]
					if _, err := f.e.Search(ctx, engine.SearchRequest{ResourceID: q.ResourceID, Query: q.Text, Options: *benchRecall(mode)}); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	})
}

// BenchmarkAppendBatch measures one Append of a batch of synthetic turns
// (realistic lengths, tool-call groups), the outbox drained in the
// background; it reports messages per second.
func BenchmarkAppendBatch(b *testing.B) {
	c, err := synth.New(synth.Config{Messages: 20_000, Resources: 20})
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			ctx := context.Background()
			e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			b.ReportAllocs()
			th, from, n, round := c.Thread(0), 0, 0, 0
			for b.Loop() {
				if from >= len(th.Messages) {
					n++
					if n == c.Len() {
						n, round = 0, round+1
					}
					th, from = c.Thread(n), 0
				}
				msgs := th.Messages[from:min(from+batch, len(th.Messages))]
				if round > 0 { // a second pass stores new copies, not duplicates
					msgs = append([]engine.Message(nil), msgs...)
					for j := range msgs {
						msgs[j].ID = fmt.Sprintf("%s.r%d", msgs[j].ID, round)
					}
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("%s.r%d", th.ID, round), ResourceID: th.ResourceID, Messages: msgs}); err != nil {
					b.Fatal(err)
				}
				from += batch
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkLoadContextPending composes the context of a thread whose
// recent window (10) holds no answer, recall off, so that LoadContext looks
// for the pending turn in the last 64 messages: "notes" is a thread of 101
// user messages (the pending turn is the newest), "longer" 70 answered
// exchanges then 30 questions (the pending turn is longer than the window).
// The bench's LoadContext calls take this path after its single appends
// (issue 14, BENCHMARKS.md).
func BenchmarkLoadContextPending(b *testing.B) {
	for _, bc := range []struct {
		name     string
		answered int // messages alternating user and assistant before the questions
	}{{"notes", 0}, {"longer", 70}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			msgs := make([]engine.Message, 101)
			for i := range msgs {
				role := engine.RoleUser
				if i < bc.answered && i%2 == 1 {
					role = engine.RoleAssistant
				}
				msgs[i] = engine.Message{Role: role, Content: strings.Repeat(fmt.Sprintf("turn %d of the conversation, ", i), 10)}
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "bench", ReplaceRun: true, ThreadID: "t", RecentN: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
