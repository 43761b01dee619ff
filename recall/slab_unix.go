//go:build unix

package recall

import (
	"fmt"
	"os"
	"unsafe"

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

// mapPrivate maps n bytes of f from offset off copy-on-write: the pages
// are read from the page cache as they are touched, with no copy on the Go
// heap; a write copies its page into the process, never into the file
// (erasure zeroes a message's bytes that way). When off is not a multiple
// of the page size, or the mapping fails, the bytes are read into a slab
// of allocSlab instead; mapped reports which. freeSlab releases either.
// The file must not be truncated while mapped (snapshots are replaced by
// rename, never rewritten in place).
func mapPrivate(f *os.File, off int64, n int) (b []byte, mapped bool, err error) {
	if n <= 0 {
		return nil, false, fmt.Errorf("%w: mapping of %d bytes", errSnapshot, n)
	}
	if off%int64(os.Getpagesize()) == 0 {
		if b, err := unix.Mmap(int(f.Fd()), off, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE); err == nil {
			return b, true, nil
		}
	}
	b = allocSlab(n)
	if _, err := f.ReadAt(b, off); err != nil {
		freeSlab(b)
		return nil, false, err
	}
	return b, false, nil
}

// detachMapping replaces the file pages mapped at b (mapPrivate) by
// anonymous memory holding the same bytes, at the same address: the
// mapping no longer refers to the file. The caller makes sure nothing
// reads b meanwhile.
func detachMapping(b []byte) error {
	tmp := make([]byte, len(b))
	copy(tmp, b)
	_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(&b[0]), uintptr(len(b)), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_FIXED)
	if err != nil {
		return err
	}
	copy(b, tmp)
	return nil
}

// fileIdentity returns f's size and modification time (Unix
// nanoseconds): one fstat. A write or truncation sets the time; a rename
// over the file or its removal (mnemo's own replacement of a snapshot)
// does not.
func fileIdentity(f *os.File) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileID{}, err
	}
	return fileID{size: st.Size, mtime: st.Mtim.Nano()}, nil
}
