//go:build unix

package recall_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotNotRegularFile: something other than a regular file in a
// snapshot's place — a FIFO (opening it for reading would wait for a
// writer forever), a directory with a file in it — is never read: the
// shard is built from the Source without waiting, the thing is removed,
// an erasure in the resource removes it too instead of failing, and a
// good snapshot is written in its place.
func TestSnapshotNotRegularFile(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 300, 7)
	for _, name := range []string{"fifo", "directory"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			w := snapIndex(t, st, dir)
			if err := w.SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
			if len(files) != 1 {
				t.Fatalf("%d snapshot files, want 1", len(files))
			}
			file := files[0]
			replace := func() {
				t.Helper()
				if err := os.Remove(file); err != nil {
					t.Fatal(err)
				}
				switch name {
				case "fifo":
					if err := syscall.Mkfifo(file, 0o600); err != nil {
						t.Skipf("no FIFO here: %v", err)
					}
				case "directory":
					if err := os.Mkdir(file, 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(file, "x"), []byte("x"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			replace()
			before := recall.SnapshotLoadsForTest()
			got, fresh := snapIndex(t, st, dir), snapIndex(t, st, "")
			done := make(chan error, 1)
			var x recall.ShardDump
			go func() {
				var err error
				x, err = got.ShardDumpForTest(ctx, st.res)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the load still waits after 20 s")
			}
			if recall.SnapshotLoadsForTest() != before {
				t.Fatal("the thing in the snapshot's place was used")
			}
			y, err := fresh.ShardDumpForTest(ctx, st.res)
			if err != nil {
				t.Fatal(err)
			}
			compareDumps(t, 0, x, y)
			if fi, err := os.Lstat(file); err == nil && !fi.Mode().IsRegular() {
				t.Fatalf("the %s is still in the snapshot's place", name)
			}
			if err := got.Close(); err != nil { // writes the snapshot again
				t.Fatal(err)
			}
			again := snapIndex(t, st, dir)
			if _, err := again.ShardDumpForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			if recall.SnapshotLoadsForTest() != before+1 {
				t.Fatal("the snapshot was not written again after the build")
			}
			// An erasure in the resource deletes its snapshot files,
			// whatever is in their place.
			replace()
			d := st.allDocs()[0]
			if err := again.Remove(ctx, []string{d.ID}); err != nil {
				t.Fatalf("erasure with a %s in the snapshot's place: %v", name, err)
			}
			if _, err := os.Lstat(file); !os.IsNotExist(err) {
				t.Fatalf("the %s is still there after the erasure (%v)", name, err)
			}
		})
	}
}

// TestSnapshotDirIsAFile: a file (or a link to one) where the snapshot directory
// should be made every open fail ('snapshot directory: mkdir …: not a
// directory', every mnemo command); the snapshots are derived, so it is
// replaced by the directory and the snapshot written. A link to a
// directory is used as it is.
func TestSnapshotDirIsAFile(t *testing.T) {
	ctx := context.Background()
	st, _ := newSnapStore(t, 300, 8)
	for _, name := range []string{"file", "link to a file", "link to a directory"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "snapshots")
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte("not a directory"), 0o600); err != nil {
				t.Fatal(err)
			}
			switch name {
			case "file":
				if err := os.WriteFile(dir, []byte("not a directory"), 0o600); err != nil {
					t.Fatal(err)
				}
			case "link to a file":
				if err := os.Symlink(target, dir); err != nil {
					t.Fatal(err)
				}
			case "link to a directory": // kept: snapshots on another disk
				other := t.TempDir()
				if err := os.Symlink(other, dir); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if files, _ := filepath.Glob(filepath.Join(other, "*.snap")); len(files) != 1 {
						t.Errorf("%d snapshot files in the linked directory, want 1", len(files))
					}
				}()
			}
			ix := snapIndex(t, st, dir)
			if err := ix.SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*.snap")); len(files) != 1 {
				t.Fatalf("%d snapshot files, want 1", len(files))
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "not a directory" {
				t.Fatalf("the link's target was touched: %q, %v", b, err)
			}
		})
	}
}
