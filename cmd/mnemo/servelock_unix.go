//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// ServeLockFile is the file `mnemo serve` holds an exclusive flock on while
// it serves a data directory; it contains the server's URL and pid.
const ServeLockFile = "serve.lock"

// lockServe takes the directory's serve lock, or says who holds it,
// creating the directory when it does not exist. release unlocks; with undo
// (a start that failed) it also removes serve.lock and the directories when
// lockServe created them (a directory only while empty), so a refused start
// leaves no trace.
func lockServe(dir, url string) (release func(undo bool), err error) {
	made := missingDirs(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, ServeLockFile)
	_, statErr := os.Stat(path)
	// Not through a symbolic link, nor a file that is not regular: a
	// serve.lock linked to another file had that file emptied by every
	// start and stop (as root, /etc/passwd).
	f, err := filekind.OpenLock(path)
	if err != nil {
		removeMade(made)
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(f.Name())
		f.Close()
		return nil, fmt.Errorf("%s is already served (%s): use that server, or stop it first", dir, strings.TrimSpace(string(holder)))
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "%s pid %d\n", url, os.Getpid())
	}
	return func(undo bool) {
		// After a clean stop serve.lock stays, empty. The lock is the
		// flock on the open file, not the file's existence: removing it
		// here would race a serve starting now, which may have opened this
		// file and be waiting to lock it, while a third creates a new
		// serve.lock and locks that; both would then serve the directory.
		f.Truncate(0)
		if undo && os.IsNotExist(statErr) {
			os.Remove(path) // still locked: no other serve can have opened it
		}
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		if undo {
			removeMade(made)
		}
	}, nil
}

// errServed is returned by commands that open a directory `mnemo serve`
// holds.
var errServed = errors.New("the data directory is held by mnemo serve")

// checkNotServed fails at once when `mnemo serve` holds dir: two processes
// writing one directory would race on the derived indexes.
func checkNotServed(dir string) error {
	if holder, ok := servedBy(dir); ok {
		return fmt.Errorf("%w (%s): use its HTTP API or MCP endpoint, or stop it first", errServed, holder)
	}
	return nil
}

// servedBy reports whether a `mnemo serve` holds dir, and what it wrote in
// serve.lock: its URL and pid ("http://127.0.0.1:7077 pid 4242").
func servedBy(dir string) (holder string, served bool) {
	f, err := os.Open(filepath.Join(dir, ServeLockFile))
	if err != nil {
		return "", false // no server ever ran here
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(f.Name())
		return strings.TrimSpace(string(b)), true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return "", false
}
