package uselite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/recall/uselite"
)

// benchSentences are ~12-token sentences, the size of a typical chat turn
// fragment; the benchmark reports sentences per second.
var benchSentences = []string{
	"The refund for order 1042 was approved yesterday.",
	"Can you remind me what we decided about staging?",
	"My daughter starts piano lessons on Tuesday afternoons.",
	"Please book a table for four near the office.",
	"The flaky integration test fails when the cache is cold.",
	"I prefer window seats on long flights.",
	"We moved the weekly sync to Thursday at three.",
	"The invoice total does not match the order again.",
}

func BenchmarkEmbed(b *testing.B) {
	for _, n := range []int{1, 64, 256} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			e := openEmbedder(b, uselite.Config{})
			texts := make([]string, n)
			tokens := 0
			for i := range texts {
				texts[i] = benchSentences[i%len(benchSentences)]
				tokens += len(e.Tokenizer().Encode(texts[i]))
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuSeconds()
			for b.Loop() {
				if _, err := e.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(n*b.N)/cpu, "sentences/cpu-s")
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sentences/s")
			b.ReportMetric(float64(tokens)/float64(n), "tokens/sentence")
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	dir := modelDir(b)
	for b.Loop() {
		if _, err := uselite.Open(uselite.Config{Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}
