//go:build !unix

package store

import "os"

// mapLog reads the file name onto the heap (no mappings on this
// platform); unmap does nothing.
func mapLog(name string) (b []byte, unmap func(), err error) {
	b, err = os.ReadFile(name)
	return b, func() {}, err
}
