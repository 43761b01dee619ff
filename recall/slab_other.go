//go:build !unix

package recall

import "os"

// allocSlab returns n zeroed bytes on the heap (no anonymous mappings on
// this platform).
func allocSlab(n int) []byte { return make([]byte, n) }

// freeSlab zeroes b and leaves it to the garbage collector.
func freeSlab(b []byte) { clear(b) }

// mapFile reads the file at path (no mappings on this platform); drop
// does nothing.
func mapFile(path string) ([]byte, func(lo, hi int), func(), error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return b, func(int, int) {}, func() {}, nil
}
