//go:build unix

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapLog maps the file name read-only and shared: its pages are read from
// the page cache as the scan touches them, with no copy on the Go heap.
// unmap releases the mapping. A file too large for an int, or one the
// mapping fails for, is read onto the heap instead (unmap then does
// nothing). An empty file gives nil bytes.
//
// Reading a page of the mapping past the file's end, after it shrank,
// raises SIGBUS: map only a file that no process truncates meanwhile
// (withLog turns such a fault into an error, never a crash).
func mapLog(name string) (b []byte, unmap func(), err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	n := fi.Size()
	if n == 0 {
		return nil, func() {}, nil
	}
	if int64(int(n)) == n {
		if b, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ, unix.MAP_SHARED); err == nil {
			return b, func() { _ = unix.Munmap(b) }, nil
		}
	}
	b, err = os.ReadFile(name)
	return b, func() {}, err
}
