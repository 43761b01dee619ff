//go:build unix

package recall

import "golang.org/x/sys/unix"

// allocSlab maps n zeroed bytes outside the Go heap (anonymous, private):
// pages take resident memory when first written. It falls back to the heap
// when the mapping fails.
func allocSlab(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}

// freeSlab unmaps b (from allocSlab); a heap fallback is left to the
// garbage collector after being zeroed.
func freeSlab(b []byte) {
	if unix.Munmap(b) != nil {
		clear(b)
	}
}
