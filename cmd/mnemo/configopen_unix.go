//go:build unix

package main

import (
	"os"
	"syscall"
)

// openConfigFile opens path (a configuration file, a schemaFile or wm
// set's --schema) for reading without waiting for a writer: opening a
// FIFO waits until something opens it for writing, so a schemaFile that
// was a FIFO nobody wrote into hung every command, mnemo check included
// (walk39 #9). It opens with O_NONBLOCK, which returns at once, then
// clears the flag, so reads block as a plain open's do: a pipe with a
// writer (--config <(…), a /dev/fd/N) is read whole as before, and one
// with no writer reads as empty (readConfigFile says so). On a regular
// file the flag changes nothing.
func openConfigFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
		if err == nil {
			err = cerr
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
