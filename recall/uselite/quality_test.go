package uselite_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/recall/uselite"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestQuality checks that use-lite captures meaning beyond shared words:
// for each triple, the paraphrase (few or no words in common) is closer to
// the anchor than the unrelated text.
func TestQuality(t *testing.T) {
	e := openEmbedder(t, uselite.Config{})
	triples := [][3]string{
		{"The refund was approved yesterday.", "They agreed to give the money back.", "The weather is rainy in Oslo."},
		{"I'm allergic to peanuts.", "Nuts make me sick, so I avoid them.", "The meeting moved to Thursday."},
		{"My flight to Tokyo leaves at 7am.", "I have an early plane to Japan.", "Please water the tomato plants."},
		{"The build fails on the CI server.", "Our continuous integration pipeline is broken.", "She adopted a kitten last week."},
		{"What is your favourite food?", "Which dish do you like best?", "The train was delayed by an hour."},
	}
	for _, tr := range triples {
		v, err := e.Embed(context.Background(), tr[:])
		if err != nil {
			t.Fatal(err)
		}
		near, far := cosine(v[0], v[1]), cosine(v[0], v[2])
		t.Logf("%q: paraphrase %.3f, unrelated %.3f", tr[0], near, far)
		if near <= far+0.1 {
			t.Errorf("%q: paraphrase %.3f not clearly above unrelated %.3f", tr[0], near, far)
		}
	}
}

// TestEmbedDeterministic checks the Embedder invariants: one unit vector
// per text, bit-for-bit the same whatever the batch, chunking, worker count
// or concurrent callers; and a context error returns no vectors.
func TestEmbedDeterministic(t *testing.T) {
	ref := loadReference(t)
	// The empty text and ten reference texts of up to 30 tokens (the
	// parity test covers clipping long ones).
	texts := []string{""}
	for _, tc := range ref.Texts {
		if len(tc.Tokens) <= 30 && len(texts) <= 10 {
			texts = append(texts, tc.Text)
		}
	}
	ctx := context.Background()
	alone := openEmbedder(t, uselite.Config{Workers: 1})
	want := make([][]float32, len(texts))
	for i, text := range texts {
		v, err := alone.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		var norm float64
		for _, x := range v[0] {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Fatalf("text %d: |v|²=%v, want 1", i, norm)
		}
		want[i] = v[0]
	}
	for _, cfg := range []uselite.Config{{ChunkRows: 7, Workers: 3}, {ChunkRows: 100000, Workers: 1}} {
		t.Run(fmt.Sprintf("chunkRows=%d/workers=%d", cfg.ChunkRows, cfg.Workers), func(t *testing.T) {
			e := openEmbedder(t, cfg)
			var wg sync.WaitGroup
			for g := 0; g < 2; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := e.Embed(ctx, texts)
					if err != nil {
						t.Error(err)
						return
					}
					for i := range texts {
						if !slices.Equal(got[i], want[i]) {
							t.Errorf("text %d %q differs from its vector embedded alone", i, texts[i])
						}
					}
				}()
			}
			wg.Wait()
			// One text per call: a single chunk, whose matrix products
			// split their columns between the workers.
			for i, text := range texts {
				got, err := e.Embed(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[0], want[i]) {
					t.Errorf("text %d %q embedded alone with %d workers differs", i, text, cfg.Workers)
				}
			}
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got, err := alone.Embed(cctx, texts); err == nil || got != nil {
		t.Fatalf("cancelled Embed = %d vectors, %v; want nil, context.Canceled", len(got), err)
	}
}
