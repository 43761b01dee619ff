package uselite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkEmbedLongMemEval embeds the first 1,024 turns of the
// LongMemEval dev file (mean ~1,000 characters, so most clipped at 128
// tokens) in batches of 512, as the engine's outbox drainer hands them to
// the embedder; it reports turns per second of wall and of process CPU,
// and tokens per turn. It skips when the file or the weights are absent
// ($MNEMO_SHARED_DATA, default /work/shared/data).
func BenchmarkEmbedLongMemEval(b *testing.B) {
	turns := longMemEvalTurns(b, 1024)
	e := openEmbedder(b, uselite.Config{})
	tokens := 0
	for _, t := range turns {
		tokens += min(len(e.Tokenizer().Encode(t)), 128)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		for from := 0; from < len(turns); from += 512 {
			if _, err := e.Embed(ctx, turns[from:min(from+512, len(turns))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(turns)*b.N)/cpu, "turns/cpu-s")
	}
	b.ReportMetric(float64(len(turns)*b.N)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(tokens)/float64(len(turns)), "tokens/turn")
}

// longMemEvalTurns returns the contents of the first n turns of the
// LongMemEval dev file's haystacks, skipping b when it is absent.
func longMemEvalTurns(b *testing.B, n int) []string {
	b.Helper()
	dir := os.Getenv("MNEMO_SHARED_DATA")
	if dir == "" {
		dir = "/work/shared/data"
	}
	raw, err := os.ReadFile(filepath.Join(dir, "longmemeval", "longmemeval_s_dev34.json"))
	if err != nil {
		b.Skipf("LongMemEval dev file absent (%v)", err)
	}
	var qs []struct {
		Sessions [][]struct {
			Content string `json:"content"`
		} `json:"haystack_sessions"`
	}
	if err := json.Unmarshal(raw, &qs); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, q := range qs {
		for _, s := range q.Sessions {
			for _, t := range s {
				if len(out) == n {
					return out
				}
				out = append(out, t.Content)
			}
		}
	}
	return out
}
