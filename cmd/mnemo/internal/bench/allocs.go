package bench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Allocs is what a run of calls allocated on the Go heap.
type Allocs struct {
	// Calls is the number of calls measured (0: not measured).
	Calls int `json:"calls"`
	// BytesPerCall and ObjectsPerCall are the heap bytes and objects
	// allocated per call (runtime.MemStats TotalAlloc and Mallocs).
	BytesPerCall   float64 `json:"bytesPerCall"`
	ObjectsPerCall float64 `json:"objectsPerCall"`
	// GCs is the number of garbage collections that ended during the calls.
	GCs uint32 `json:"gcs"`
	// PageFaultsPerCall is the process's minor page faults per call (all
	// goroutines; getrusage, 0 where not counted): first touches of fresh
	// heap pages and of mapped snapshot pages. On a virtual machine each
	// can cost tens of microseconds (BENCHMARKS.md, issue 14 "page faults").
	PageFaultsPerCall float64 `json:"pageFaultsPerCall,omitempty"`
}

// startAllocs starts counting the heap allocations of the calls that
// follow; stop returns them per call over n calls. With a file name it
// also writes an allocation profile of those calls only (Options.
// AllocProfile): every allocation is sampled from here on, and the
// profile's counts before the start are subtracted by writing a base
// profile next to it (FILE.base; go tool pprof -base FILE.base FILE).
func startAllocs(file string) (stop func(n int) (Allocs, error), err error) {
	rate := runtime.MemProfileRate
	if file != "" {
		runtime.MemProfileRate = 1
		if err := writeAllocs(file + ".base"); err != nil {
			return nil, err
		}
	}
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f0 := minorFaults()
	return func(n int) (Allocs, error) {
		f1 := minorFaults()
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		a := Allocs{Calls: n, GCs: m1.NumGC - m0.NumGC}
		if n > 0 {
			a.BytesPerCall = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
			a.ObjectsPerCall = float64(m1.Mallocs-m0.Mallocs) / float64(n)
			a.PageFaultsPerCall = float64(f1-f0) / float64(n)
		}
		if file == "" {
			return a, nil
		}
		err := writeAllocs(file)
		runtime.MemProfileRate = rate
		return a, err
	}, nil
}

// writeAllocs writes the allocation profile so far to file, after a
// garbage collection (the profile counts up to the last one).
func writeAllocs(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("--allocprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--allocprofile: %w", err)
	}
	return f.Close()
}
