//go:build !unix

package main

import "os"

// openConfigFile opens path for reading: this platform has no FIFO that
// an open would wait on (configopen_unix.go).
func openConfigFile(path string) (*os.File, error) { return os.Open(path) }
