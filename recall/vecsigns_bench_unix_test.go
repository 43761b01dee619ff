//go:build unix

package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
)

// BenchmarkVectorScanDense: the vector index's search for the top 110 of
// 100,000 dense vectors (use-lite's 512 dimensions), with the sign pass in
// front of the int8 scan (signs) and without it (int8, the path before
// it); the same index and query.
func BenchmarkVectorScanDense(b *testing.B) {
	r := rand.New(rand.NewPCG(14, 512))
	const dims, rows = 512, 100_000
	centres := make([][]float32, 40)
	for i := range centres {
		centres[i] = randomUnit(r, dims, nil, 0)
	}
	x := newVecIndex(dims)
	for i := range rows {
		x.put(&entry{doc: Doc{ID: fmt.Sprintf("m%06d", i)}, ord: i}, randomUnit(r, dims, centres[r.IntN(len(centres))], 0.6))
	}
	q := randomUnit(r, dims, centres[0], 0.6)
	const n = 110
	pool := max(poolFactor*n, minPool)
	b.Run("int8/100k", func(b *testing.B) {
		sc := &scratch{}
		t0 := threadCPU()
		for b.Loop() {
			cands, _ := x.candidates(context.Background(), sc, q, pool, nil)
			x.rescore(sc, x.query(q), n, cands)
		}
		b.ReportMetric(float64(threadCPU()-t0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("signs/100k", func(b *testing.B) {
		if !x.signsPay(n) {
			b.Fatal("the sign pass does not run")
		}
		t0 := threadCPU()
		for b.Loop() {
			x.search(q, n, nil)
		}
		b.ReportMetric(float64(threadCPU()-t0)/float64(b.N), "cpu-ns/op")
	})
}

// threadCPU returns the CPU time of the process in nanoseconds (user and
// system): on a loaded machine a fairer per-op figure than wall time.
func threadCPU() int64 {
	runtime.GC()
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
