//go:build unix

package engine_test

import "syscall"

// cpuSeconds is the process's user+system CPU time. BenchmarkRedactorMB
// reports CPU time per operation beside the wall time: on a machine
// shared with other jobs the wall figure measures the contention.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
