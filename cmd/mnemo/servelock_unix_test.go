//go:build unix

package main

import (
	"os"
	"path/filepath"
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
	// The engine's LOCK gets the same words (filekind.OpenLock, one
	// helper for both; this said "which mnemo serve does not follow: it
	// writes serve.lock").
	if want := "the lock file " + lock + " is a symbolic link (to " + target + "), which mnemo does not follow: it writes the lock file; remove the link"; err == nil || err.Error() != want {
		t.Fatalf("lockServe with serve.lock a link: %v, want %q", err, want)
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
	if want := "the lock file " + lock + " is a pipe, not a regular file: remove it"; err == nil || err.Error() != want {
		t.Fatalf("lockServe with serve.lock a FIFO: %v, want %q", err, want)
	}
}
