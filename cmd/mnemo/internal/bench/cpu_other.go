//go:build !unix

package bench

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }

// minorFaults is not counted on this platform.
func minorFaults() int64 { return 0 }
