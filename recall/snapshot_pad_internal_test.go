package recall

import (
	"io"
	"testing"
)

// TestSnapPadNoAlloc: padding a snapshot allocates nothing (a local zero
// array escaped through the writer: 4 KiB on the heap per call).
func TestSnapPadNoAlloc(t *testing.T) {
	sw := newSnapWriter(io.Discard)
	allocs := testing.AllocsPerRun(100, func() {
		sw.u32(1)
		sw.pad(snapAlign)
	})
	if allocs != 0 {
		t.Fatalf("pad: %.1f allocations per call, want 0", allocs)
	}
	if sw.err != nil || sw.n%snapAlign != 0 {
		t.Fatalf("after pad: n=%d err=%v", sw.n, sw.err)
	}
}
