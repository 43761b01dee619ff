//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeLockNotFollowed: a serve.lock that is a symbolic link is
// refused and the file it names untouched; lockServe truncated the link's
// target at start and stop (a serve.lock linked to /etc/passwd emptied it
// for a serve run as root). One that is not a regular file is refused
// naming what it is.
func TestServeLockNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, ServeLockFile)
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	release, err := lockServe(dir, "http://127.0.0.1:1")
	if err == nil {
		release(false)
	}
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link (to "+target+")") {
		t.Fatalf("lockServe with serve.lock a link: %v", err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "precious\n" {
		t.Fatalf("the link's target now holds %q (%v)", b, err)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(lock, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	if release, err = lockServe(dir, "http://127.0.0.1:1"); err == nil {
		release(false)
	}
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("lockServe with serve.lock a FIFO: %v", err)
	}
}
