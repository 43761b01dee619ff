//go:build unix

package filekind_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// TestOpenLock: the one open of a lock file, for the engine's LOCK and
// mnemo serve's serve.lock (each had its own copy, worded differently):
// a missing file is created 0600 and an existing one opened as it is; a
// symbolic link, dangling or not, is refused naming its target, the file
// it names untouched or not created; a directory or a FIFO is refused
// naming what it is.
func TestOpenLock(t *testing.T) {
	dir := t.TempDir()
	t.Run("OK", func(t *testing.T) {
		path := filepath.Join(dir, "LOCK")
		f, err := filekind.OpenLock(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("holder\n")
		f.Close()
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("created %v, %v; want a file of mode 0600", fi, err)
		}
		f, err = filekind.OpenLock(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, 16)
		if n, _ := f.Read(b); string(b[:n]) != "holder\n" {
			t.Fatalf("reopened: %q, want the holder kept", b[:n])
		}
	})
	t.Run("ErrSymlink", func(t *testing.T) {
		target := filepath.Join(dir, "precious")
		if err := os.WriteFile(target, []byte("precious\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		missing := filepath.Join(dir, "missing")
		for _, to := range []string{target, missing} {
			path := filepath.Join(dir, "link-"+filepath.Base(to))
			if err := os.Symlink(to, path); err != nil {
				t.Skipf("no symbolic link: %v", err)
			}
			f, err := filekind.OpenLock(path)
			if err == nil {
				f.Close()
			}
			var nr *filekind.NotRegularError
			if !errors.As(err, &nr) || nr.Kind != "symbolic link" || nr.Target != to {
				t.Fatalf("link to %s: %v, want a *NotRegularError naming the target", to, err)
			}
			if got, want := err.Error(), "the lock file "+path+" is a symbolic link (to "+to+"), which mnemo does not follow: it writes the lock file; remove the link"; got != want {
				t.Fatalf("error %q, want %q", got, want)
			}
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != "precious\n" {
			t.Fatalf("the link's target now holds %q (%v)", b, err)
		}
		if _, err := os.Lstat(missing); !os.IsNotExist(err) {
			t.Fatalf("a dangling link's target was created: %v", err)
		}
	})
	t.Run("ErrNotRegular", func(t *testing.T) {
		sub := filepath.Join(dir, "sub")
		if err := os.Mkdir(sub, 0o700); err != nil {
			t.Fatal(err)
		}
		cases := map[string]string{sub: "directory"}
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err == nil {
			cases[fifo] = "pipe"
		}
		for path, kind := range cases {
			f, err := filekind.OpenLock(path)
			if err == nil {
				f.Close()
			}
			var nr *filekind.NotRegularError
			if !errors.As(err, &nr) || nr.Kind != kind {
				t.Fatalf("%s: %v, want a *NotRegularError of kind %s", path, err, kind)
			}
			if got, want := err.Error(), "the lock file "+path+" is a "+kind+", not a regular file: remove it"; got != want {
				t.Fatalf("error %q, want %q", got, want)
			}
		}
	})
}
