package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOneLine checks the preview's one-pass join and cut against joining
// every word and cutting the runes (oneLineSlow) on random strings of
// words, ASCII and Unicode spaces (NBSP, NEL, ideographic), multi-byte
// runes and invalid UTF-8, at and around the limit.
func TestOneLine(t *testing.T) {
	pieces := []string{"a", "bb", "word", "é", "日本", "🙂", " ", "  ", "\t", "\n", "\v\f\r", "\u00a0", "\u0085", "\u3000", "\xff", "x\xc3", "—"}
	rng := rand.New(rand.NewPCG(14, 80))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, limit := b.String(), 1+rng.IntN(20)
		if got, want := oneLine(s, limit), oneLineSlow(s, limit); got != want {
			t.Fatalf("oneLine(%q, %d) = %q, want %q", s, limit, got, want)
		}
	}
}

// BenchmarkOneLine is the preview of a 300-byte message and of a short
// one (issue 14: one allocation each, the result).
func BenchmarkOneLine(b *testing.B) {
	long := strings.Repeat("words of a turn, ", 18)
	b.ReportAllocs()
	for b.Loop() {
		if oneLine(long, 120) == "" || oneLine("a short answer", 120) == "" {
			b.Fatal("empty")
		}
	}
}
