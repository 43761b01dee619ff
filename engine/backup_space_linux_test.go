//go:build linux

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestBackupDiskFull: a backup onto a disk without room for the copy fails
// with ErrNoSpace, leaves neither the destination nor its staging
// directory, and leaves the data directory as it was (it checks and opens).
// Mounting the small tmpfs needs root (mountTmpfs skips otherwise).
func TestBackupDiskFull(t *testing.T) {
	ctx := context.Background()
	parent := mountTmpfs(t, 64<<10)
	e := enginetest.MustOpen(t, engine.Config{})
	for i := range 200 {
		if err := appendOne(ctx, e, "ana", "t1", fmt.Sprintf("turn %d %s", i, strings.Repeat("text ", 100))); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(parent, "backup")
	_, err := engine.Backup(ctx, engine.Config{Dir: e.Dir()}, dest, engine.BackupOptions{})
	if !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("Backup = %v, want ErrNoSpace", err)
	}
	t.Log(err)
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed backup left %s: %v", dest, err)
	}
	assertNoStaging(t, parent)
}

// TestBackupReadOnlyDamagedWAL: a read-only data directory (a mounted
// snapshot) whose write-ahead log holds commits past a damaged frame is
// refused with ErrWALDamaged, as a writable one is. Its lock file could not
// be opened to write, so the log was not scanned, and the backup copied
// what SQLite's read-only read recovers and said "backed up".
func TestBackupReadOnlyDamagedWAL(t *testing.T) {
	src := walCrashImage(t)
	damageWALFrame(t, src, false)
	var dir string
	if os.Geteuid() == 0 {
		mnt := mountTmpfs(t, 64<<20)
		dir = filepath.Join(mnt, "data")
		copyTree(t, src, dir)
		remount(t, mnt, 64<<20, true)
	} else {
		dir = src
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}
	dest := filepath.Join(t.TempDir(), "b")
	res, err := engine.Backup(context.Background(), engine.Config{Dir: dir}, dest, engine.BackupOptions{})
	if !errors.Is(err, engine.ErrWALDamaged) {
		t.Fatalf("Backup of a read-only directory with a damaged log = %+v, %v; want ErrWALDamaged", res, err)
	}
	// An open there cannot keep or repair the log (before: "open the
	// directory first"): the copy is opened (docs/operations.md).
	if msg := err.Error(); !strings.Contains(msg, "not writable: copy it (cp -a DIR COPY) and open the copy") || strings.Contains(msg, "open the directory first") {
		t.Errorf("the refusal says %q; want it to say to copy the directory and open the copy", msg)
	}
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dest after the refusal: %v, want none", err)
	}
}
