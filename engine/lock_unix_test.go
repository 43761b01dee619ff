//go:build unix

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestLockFileNotFollowed: a LOCK that is a symbolic link is refused, the
// file it names untouched. Open truncated the link's target and wrote its
// holder into it: with a LOCK linked to /etc/passwd, `mnemo search` run as
// root replaced the machine's user list by {"pid":…}. A LOCK that is not a
// regular file (a FIFO) is refused naming what it is.
func TestLockFileNotFollowed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, engine.LockFile)
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, lock); err != nil {
		t.Fatal(err)
	}
	_, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	// The words mnemo serve's serve.lock gets (filekind.OpenLock, one
	// helper for both), with the engine's prefix.
	if want := "engine: the lock file " + lock + " is a symbolic link (to " + target + "), which mnemo does not follow: it writes the lock file; remove the link"; err == nil || err.Error() != want {
		t.Fatalf("open with LOCK a link: %v, want %q", err, want)
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
	_, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if want := "engine: the lock file " + lock + " is a pipe, not a regular file: remove it"; err == nil || err.Error() != want {
		t.Fatalf("open with LOCK a FIFO: %v, want %q", err, want)
	}
}
