//go:build unix

package uselite_test

import "syscall"

// cpuSeconds is the process's user+system CPU time. Benchmarks report
// throughput per CPU-second beside wall-clock throughput: on a machine
// shared with other jobs the wall figure measures the contention.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
