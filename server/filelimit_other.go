//go:build !unix

package server

// fileLimit is 0 where the process's limit on open files is not known.
func fileLimit() int { return 0 }
