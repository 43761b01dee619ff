//go:build !unix

package engine

// fileSizeLimit is 0: no file size limit is known on this system.
func fileSizeLimit() int64 { return 0 }
