//go:build unix

package recall

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

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

// mapFile maps the file at path read-only; release unmaps it. The pages
// are read as they are touched, from the page cache when warm, with no
// copy on the Go heap; drop(lo, hi) gives back the pages of [lo, hi)
// already read (they stay in the page cache and fault in again if read),
// so that reading the file does not add its size to the resident set.
func mapFile(path string) (b []byte, drop func(lo, hi int), release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	if fi.Size() == 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, nil, nil, fmt.Errorf("%w: size %d", errSnapshot, fi.Size())
	}
	b, err = unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, nil, err
	}
	_ = unix.Madvise(b, unix.MADV_SEQUENTIAL)
	page := os.Getpagesize()
	drop = func(lo, hi int) {
		lo = (lo + page - 1) / page * page
		hi = min(hi/page*page, len(b))
		if hi > lo {
			_ = unix.Madvise(b[lo:hi], unix.MADV_DONTNEED)
		}
	}
	return b, drop, func() { _ = unix.Munmap(b) }, nil
}
