//go:build !unix

package uselite_test

// cpuSeconds is unknown here; benchmarks then omit the per-CPU-second
// figure.
func cpuSeconds() float64 { return 0 }
