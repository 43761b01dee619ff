package uselite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatmul checks the matrix product (kernel path where the CPU has it,
// gonum otherwise) against a float64 triple loop, on shapes that exercise
// every remainder: rows not a multiple of 4, k across the blockK boundary,
// n across blockN and not a multiple of 16 (the gonum fallback).
func TestMatmul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 3, 4, 6, 9, 11, 13} {
		for _, k := range []int{1, 5, 256, 300} {
			for _, n := range []int{16, 48, 144, 40, 400} {
				par := 1 + m%3 // 1, 2 or 3 goroutines
				t.Run(fmt.Sprintf("m=%d/k=%d/n=%d/par=%d", m, k, n, par), func(t *testing.T) {
					a := randSlice(rng, m*k)
					w := randSlice(rng, k*n)
					bias := randSlice(rng, n)
					// Guard cells after dst catch writes past the end.
					dst := make([]float32, m*n+16)
					for i := range dst[m*n:] {
						dst[m*n+i] = 42
					}
					matmul(dst[:m*n], a, m, newMatrix(w, k, n), bias, par)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							want := float64(bias[j])
							for p := 0; p < k; p++ {
								want += float64(a[i*k+p]) * float64(w[p*n+j])
							}
							if d := math.Abs(float64(dst[i*n+j]) - want); d > 1e-4*math.Max(1, math.Abs(want)) {
								t.Fatalf("dst[%d,%d]=%v, want %v", i, j, dst[i*n+j], want)
							}
						}
					}
					for i, v := range dst[m*n:] {
						if v != 42 {
							t.Fatalf("guard cell %d overwritten: %v", i, v)
						}
					}
				})
			}
		}
	}
	t.Logf("assembly kernel in use: %v", haveKernel)
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// BenchmarkMatmul reports the product's throughput on the shape of the
// feed-forward layer for a chunk of 192 token rows.
func BenchmarkMatmul(b *testing.B) {
	const m, k, n = 192, 512, 1536
	rng := rand.New(rand.NewPCG(1, 2))
	a, w, bias := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, n)
	dst := make([]float32, m*n)
	wm := newMatrix(w, k, n)
	for b.Loop() {
		matmul(dst, a, m, wm, bias, 1)
	}
	b.ReportMetric(2*m*k*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
