//go:build !unix

package recall

import (
	"fmt"
	"os"
)

// allocSlab returns n zeroed bytes on the heap (no anonymous mappings on
// this platform).
func allocSlab(n int) []byte { return make([]byte, n) }

// freeSlab zeroes b and leaves it to the garbage collector.
func freeSlab(b []byte) { clear(b) }

// mapPrivate reads n bytes of f from offset off (no mappings on this
// platform): mapped is false.
func mapPrivate(f *os.File, off int64, n int) (b []byte, mapped bool, err error) {
	if n <= 0 {
		return nil, false, fmt.Errorf("%w: mapping of %d bytes", errSnapshot, n)
	}
	b = make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, false, err
	}
	return b, false, nil
}

// detachMapping does nothing: no slab is mapped from a file here.
func detachMapping([]byte) error { return nil }

// fileIdentity returns f's size and modification time (no slab is mapped
// from a file on this platform: nothing depends on it).
func fileIdentity(f *os.File) (fileID, error) {
	fi, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}
