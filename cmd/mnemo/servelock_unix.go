//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ServeLockFile is the file `mnemo serve` holds an exclusive flock on while
// it serves a data directory; it contains the server's URL and pid.
const ServeLockFile = "serve.lock"

// lockServe takes the directory's serve lock, or says who holds it.
func lockServe(dir, url string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ServeLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(f.Name())
		f.Close()
		return nil, fmt.Errorf("%s is already served (%s)", dir, strings.TrimSpace(string(holder)))
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "%s pid %d\n", url, os.Getpid())
	}
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// errServed is returned by commands that open a directory `mnemo serve`
// holds.
var errServed = errors.New("the data directory is held by mnemo serve")

// checkNotServed fails at once when `mnemo serve` holds dir: two processes
// writing one directory would race on the derived indexes.
func checkNotServed(dir string) error {
	f, err := os.Open(filepath.Join(dir, ServeLockFile))
	if err != nil {
		return nil // no server ever ran here
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(f.Name())
		return fmt.Errorf("%w (%s): use its HTTP API or MCP endpoint, or stop it first", errServed, strings.TrimSpace(string(holder)))
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return nil
}
