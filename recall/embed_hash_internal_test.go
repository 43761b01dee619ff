package recall

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// hashVectorReference is hash-384 written as the specification reads, one
// feature string and one fnv1a32 per feature: hashVector must equal it bit
// for bit.
func hashVectorReference(text string) []float32 {
	var v [HashDims]float64
	add := func(feature string, w float64) {
		h := fnv1a32(feature)
		idx := (h & 0x7FFFFFFF) % HashDims
		if h&0x80000000 != 0 {
			w = -w
		}
		v[idx] += w
	}
	for _, t := range hashTokens(text) {
		add("w:"+t, 1.0)
		for i := 0; i+3 <= len(t); i++ {
			add("c:"+t[i:i+3], 0.5)
		}
	}
	var sum float64
	for i := range v {
		sum += v[i] * v[i]
	}
	out := make([]float32, HashDims)
	norm := math.Sqrt(sum)
	if norm == 0 {
		out[0] = 1
		return out
	}
	for i := range out {
		out[i] = float32(v[i] / norm)
	}
	return out
}

// TestHashVectorEqualsReference compares hashVector with the reference on
// random texts: ASCII words, digits, punctuation, bytes >= 0x80, tokens
// longer than the in-place buffer, empty text.
func TestHashVectorEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"Hello", "WORLD", "x", "ab", "abc", "2026", "e.g.", "don't", " ", "  ", "\n", "—", "é", "ü", "\xff",
		"-", ",", strings.Repeat("Z", 70), strings.Repeat("q1", 90), "MixedCase42", "tab\there"}
	texts := []string{"", " ", "a", "ABC", strings.Repeat("w", 64), strings.Repeat("w", 65)}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) == 0 {
				b.WriteByte(' ')
			}
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		got, want := hashVector(text), hashVectorReference(text)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("hashVector(%q)[%d] = %v, want %v", text, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkHashVector measures one hash-384 vector of a chat turn.
func BenchmarkHashVector(b *testing.B) {
	text := "Can you remind me what we decided about the quarterly report and the train to Berlin on Friday?"
	b.ReportAllocs()
	for b.Loop() {
		hashVector(text)
	}
}

func BenchmarkHashVectorReference(b *testing.B) {
	text := "Can you remind me what we decided about the quarterly report and the train to Berlin on Friday?"
	b.ReportAllocs()
	for b.Loop() {
		hashVectorReference(text)
	}
}
