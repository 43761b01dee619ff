package bm25_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// TestSameArithmetic pins IDF, Norm and Weight to the inline expressions
// recall (bm25Stats.idf and score, dateScore) and observe (Search) used
// before they shared this package, bit for bit, so that sharing the
// formula changed no score.
func TestSameArithmetic(t *testing.T) {
	const k1, b = 1.2, 0.75
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		n := float64(1 + rng.IntN(1_000_000))
		df := float64(rng.IntN(int(n) + 1))
		tf := float64(1 + rng.IntN(40))
		docLen := float64(1 + rng.IntN(500))
		avg := 1 + rng.Float64()*200

		if got, want := bm25.IDF(n, df), math.Log(1+(n-df+0.5)/(df+0.5)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("IDF(%v, %v) = %v, inline %v", n, df, got, want)
		}
		idf := bm25.IDF(n, df)
		// recall: norm once per document, then each term.
		norm := k1 * (1 - b + b*docLen/avg)
		if got := bm25.Norm(docLen, avg); math.Float64bits(got) != math.Float64bits(norm) {
			t.Fatalf("Norm(%v, %v) = %v, inline %v", docLen, avg, got, norm)
		}
		if got, want := bm25.Weight(idf, tf, bm25.Norm(docLen, avg)), idf*tf*(k1+1)/(tf+norm); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Weight = %v, recall's inline %v", got, want)
		}
		// observe: the whole expression inline per term.
		if got, want := bm25.Weight(idf, tf, bm25.Norm(docLen, avg)), idf*tf*(k1+1)/(tf+k1*(1-b+b*docLen/avg)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Weight = %v, observe's inline %v", got, want)
		}
		// recall's date term: tf 1.
		if got, want := bm25.Weight(idf, 1, norm), idf*(k1+1)/(1+norm); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Weight(tf 1) = %v, dateScore's inline %v", got, want)
		}
		if idf <= 0 {
			t.Fatalf("IDF(%v, %v) = %v, want > 0", n, df, idf)
		}
	}
}

// TestTextbook checks a hand-computed score: a term in 1 of 3 documents,
// twice in a document of average length.
func TestTextbook(t *testing.T) {
	idf := bm25.IDF(3, 1) // ln(1 + 2.5/1.5) = ln(8/3)
	if math.Abs(idf-math.Log(8.0/3)) > 1e-15 {
		t.Fatalf("IDF = %v", idf)
	}
	if got := bm25.Norm(10, 10); got != bm25.K1 {
		t.Fatalf("Norm at the average length = %v, want K1", got)
	}
	want := idf * 2 * 2.2 / (2 + 1.2)
	if got := bm25.Weight(idf, 2, bm25.Norm(10, 10)); math.Abs(got-want) > 1e-15 {
		t.Fatalf("Weight = %v, want %v", got, want)
	}
}
