//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest"
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

// TestServeTwiceSameDirAndPort: a second mnemo serve of a served directory
// on the same address (the same command run twice) is told first that the
// directory is already served, by whom, then that the address is in use.
// Before, it was told only "address already in use (another server on it?
// choose another with --listen 127.0.0.1:PORT)", and on another port was
// then refused for the directory. Two real serve processes.
func TestServeTwiceSameDirAndPort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my dir")
	first := cli(t, dir, "serve", "--listen", "127.0.0.1:0")
	stderr := &enginetest.SyncBuffer{}
	first.Stderr = stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	defer func() {
		first.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(stopBound):
			first.Process.Kill()
		}
	}()
	url := waitFor(t, stderr, regexp.MustCompile(`listening on http://([0-9.:]+)`), done)
	second := cli(t, dir, "serve", "--listen", url)
	var errOut bytes.Buffer
	second.Stderr = &errOut
	err := second.Run()
	want := "mnemo serve: " + dir + " is already served (http://" + url + " pid " + strconv.Itoa(first.Process.Pid) + "): use that server, or stop it first (its address is in use too: listen tcp " + url + ": bind: address already in use)\n"
	if second.ProcessState.ExitCode() != 1 || errOut.String() != want {
		t.Fatalf("second serve: %v, stderr %q; want exit 1 and %q", err, errOut.String(), want)
	}
	// On another port the lock refuses it, with the same advice (readme57:
	// it ended at the holder, without what to do).
	third := cli(t, dir, "serve", "--listen", "127.0.0.1:0")
	errOut.Reset()
	third.Stderr = &errOut
	err = third.Run()
	want = "mnemo serve: " + dir + " is already served (http://" + url + " pid " + strconv.Itoa(first.Process.Pid) + "): use that server, or stop it first\n"
	if third.ProcessState.ExitCode() != 1 || errOut.String() != want {
		t.Fatalf("serve on another port: %v, stderr %q; want exit 1 and %q", err, errOut.String(), want)
	}
}
