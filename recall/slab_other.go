//go:build !unix

package recall

// allocSlab returns n zeroed bytes on the heap (no anonymous mappings on
// this platform).
func allocSlab(n int) []byte { return make([]byte, n) }

// freeSlab zeroes b and leaves it to the garbage collector.
func freeSlab(b []byte) { clear(b) }
