//go:build unix

package bench

import (
	"syscall"
	"testing"
)

// TestAllocsPageFaults: startAllocs counts the page faults of the calls
// (here 8 MiB of fresh anonymous memory written: one fault a 4 KiB page
// where the kernel gives no larger ones) and the report prints them.
func TestAllocsPageFaults(t *testing.T) {
	stop, err := startAllocs("")
	if err != nil {
		t.Fatal(err)
	}
	const size = 8 << 20
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(b)
	for i := 0; i < size; i += 4096 {
		b[i] = 1
	}
	a, err := stop(2)
	if err != nil {
		t.Fatal(err)
	}
	if a.PageFaultsPerCall < 2 {
		t.Fatalf("%.1f page faults per call counted for 2 calls touching 8 MiB of fresh memory", a.PageFaultsPerCall)
	}
	t.Logf("%.1f page faults per call", a.PageFaultsPerCall)
}
