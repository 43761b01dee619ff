//go:build !unix

package engine_test

// cpuSeconds is unknown here; BenchmarkRedactorMB then omits its
// per-CPU figure.
func cpuSeconds() float64 { return 0 }
