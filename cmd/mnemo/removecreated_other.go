//go:build !unix

package main

// removeCreated leaves the data directory: without flock, this platform
// cannot tell that no other process opened it since.
func removeCreated(made []string) {}
