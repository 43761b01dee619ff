//go:build unix

package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestOpenWALNotFile: a -wal or a -shm that is a pipe, a directory or a symbolic
// link (to a file, or to nothing) is refused by Open with a
// *WALNotFileError naming it and its kind (a link: its target), before
// SQLite opens anything: the pipe keeps its mode (the open's chmod of
// -wal/-shm made it 0600), nothing is written through the link, and
// the database file is untouched. Before, the link gave SQLite's bare
// "unable to open database file (14)".
func TestOpenWALNotFile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, kind string
		make       func(t *testing.T, dir, log string) (target string)
	}{
		{"pipe", "pipe", func(t *testing.T, dir, log string) string {
			if err := syscall.Mkfifo(log, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if err := os.Chmod(log, 0o644); err != nil { // past the umask
				t.Fatal(err)
			}
			return ""
		}},
		{"directory", "directory", func(t *testing.T, dir, log string) string {
			if err := os.Mkdir(log, 0o755); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{"link to a file", "symbolic link", func(t *testing.T, dir, log string) string {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, log); err != nil {
				t.Fatal(err)
			}
			return target
		}},
		{"link to nothing", "symbolic link", func(t *testing.T, dir, log string) string {
			target := filepath.Join(t.TempDir(), "missing")
			if err := os.Symlink(target, log); err != nil {
				t.Fatal(err)
			}
			return target
		}},
	} {
		for _, suffix := range []string{"-wal", "-shm"} {
			t.Run(tc.name+suffix, func(t *testing.T) { openNotFile(t, ctx, suffix, tc.kind, tc.make) })
		}
	}
}

// openNotFile makes the database's file suffix (-wal or -shm) with mk and
// checks what Open says of it (TestOpenWALNotFile).
func openNotFile(t *testing.T, ctx context.Context, suffix, kind string, mk func(t *testing.T, dir, log string) string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mnemo.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CloseDB(db); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := path + suffix
	os.Remove(log)
	target := mk(t, dir, log)
	fiBefore, err := os.Lstat(log)
	if err != nil {
		t.Fatal(err)
	}

	db, err = store.Open(ctx, path)
	if err == nil {
		store.CloseDB(db)
	}
	var we *store.WALNotFileError
	if !errors.As(err, &we) || we.Log != log || we.Index != (suffix == "-shm") || we.Kind != kind || we.Target != target {
		t.Fatalf("open: %v (%#v), want a *WALNotFileError for %s, a %s (target %q)", err, we, log, kind, target)
	}
	if !strings.Contains(err.Error(), log) || !strings.Contains(err.Error(), target) {
		t.Fatalf("open: %q does not name %s and %q", err, log, target)
	}
	fiAfter, err := os.Lstat(log)
	if err != nil || fiAfter.Mode() != fiBefore.Mode() {
		t.Fatalf("the file after the open: %v, %v; want it left as %v", fiAfter.Mode(), err, fiBefore.Mode())
	}
	if target != "" {
		if b, err := os.ReadFile(target); kind == "symbolic link" && !strings.HasSuffix(target, "missing") && (err != nil || len(b) != 0) {
			t.Fatalf("the link's target after the open: %d bytes, %v; want it empty, as made", len(b), err)
		} else if _, err := os.Lstat(target); strings.HasSuffix(target, "missing") && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the missing target was created: %v", err)
		}
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Fatalf("the database file changed (%v)", err)
	}
	other := map[string]string{"-wal": "-shm", "-shm": "-wal"}[suffix]
	if _, err := os.Lstat(path + other); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the open made a %s: %v", other, err)
	}
}
