//go:build linux

package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// The tests of this file salvage a data directory on a file system that
// refuses writes (read-only) or runs out of room (a small tmpfs): the
// salvage must fail with an error that says so and lose nothing. Mounting
// needs root; without it the read-only case uses a directory's mode and
// the disk-full case is skipped.

// mountTmpfs mounts a tmpfs of size bytes on a new directory, unmounted
// when the test ends; it skips the test when mounting is not allowed.
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// remount changes the size of the tmpfs at dir, or makes it read-only.
func remount(t *testing.T, dir string, size int64, readOnly bool) {
	t.Helper()
	flags := uintptr(syscall.MS_REMOUNT)
	if readOnly {
		flags |= syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, fmt.Sprintf("size=%d", size)); err != nil {
		t.Fatalf("remount %s: %v", dir, err)
	}
}

// copyTree copies the directory tree src to dst (which must not exist).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeSums maps every file under dir (relative path) to its contents.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	return out
}

// damagedLiveFixture is salvageFixture's crash image (mnemo.db with its
// -wal) with a leaf page of messages garbled.
func damagedLiveFixture(t *testing.T) string {
	t.Helper()
	dir := salvageFixture(t, true)
	garbleLeaf(t, filepath.Join(dir, engine.DatabaseFile), 11)
	return dir
}

// TestSalvageReadOnlyDir: on a data directory that cannot be written, the
// salvage fails at once, saying why, and changes no file.
func TestSalvageReadOnlyDir(t *testing.T) {
	src := damagedLiveFixture(t)
	var dir string
	if os.Geteuid() == 0 {
		mnt := mountTmpfs(t, 256<<20)
		dir = filepath.Join(mnt, "data")
		copyTree(t, src, dir)
		remount(t, mnt, 256<<20, true)
	} else {
		dir = src
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}
	before := treeFiles(t, dir)
	rep, err := engine.Salvage(context.Background(), engine.Config{Dir: dir}, engine.SalvageOptions{})
	if err == nil || !(strings.Contains(err.Error(), "read-only file system") || strings.Contains(err.Error(), "permission denied")) {
		t.Fatalf("salvage of a read-only directory: %v (report %+v)", err, rep)
	}
	t.Logf("salvage: %v", err)
	after := treeFiles(t, dir)
	if len(after) != len(before) {
		t.Fatalf("files %d, were %d", len(after), len(before))
	}
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Fatalf("%s changed", name)
		}
	}
}

// TestSalvageDiskFull salvages the same damaged directory on tmpfs file
// systems with less and less room to spare, so that the disk fills at
// each step (the copy of the damaged file, the new database, the swap,
// the indexes). Whatever the step: the error says the disk is full (or
// the salvage succeeds), the original mnemo.db and its -wal are whole,
// byte for byte, under mnemo.db or the kept name, no staging copy is left,
// and once there is room again a salvage finishes the work and the
// directory checks ok with the messages a salvage with room keeps.
func TestSalvageDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a dozen file systems")
	}
	ctx := context.Background()
	src := damagedLiveFixture(t)
	orig := treeFiles(t, src)
	db, wal := orig[engine.DatabaseFile], orig[engine.DatabaseFile+"-wal"]
	var used int64
	for _, b := range orig {
		used += (int64(len(b)) + 4095) / 4096 * 4096
	}
	want := salvagedMessages(t, src)
	// Coarse steps of a quarter of the database, then fine ones below the
	// first size that was enough, where the late steps (the swap, the
	// indexes) run out of room.
	step := int64(len(db)+len(wal)) / 4
	var spares []int64
	for k := int64(0); k <= 16; k++ {
		spares = append(spares, k*step)
	}
	failed, enough := 0, int64(-1)
	for i := 0; i < len(spares); i++ {
		spare := spares[i]
		ok := t.Run(fmt.Sprintf("Spare%dKiB", spare>>10), func(t *testing.T) {
			mnt := mountTmpfs(t, used+64<<10+spare)
			dir := filepath.Join(mnt, "data")
			copyTree(t, src, dir)
			_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			if err == nil && enough < 0 {
				enough = spare
				for f := spare - step + step/16; f < spare; f += step / 16 {
					spares = append(spares, f)
				}
			}
			if err != nil {
				failed++
				t.Logf("salvage: %v", err)
				if !errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "make room and run salvage again") {
					t.Errorf("the error does not say the disk is full and what to do: %v", err)
				}
			}
			keptWhole(t, dir, db, wal, err == nil)
			if stale, _ := filepath.Glob(filepath.Join(dir, ".salvage-*")); len(stale) > 0 {
				t.Errorf("staging left: %v", stale)
			}
			if err == nil {
				return
			}
			remount(t, mnt, used+256<<20, false)
			finishSalvage(t, dir)
			keptWhole(t, dir, db, wal, true)
			if got := salvagedMessages(t, dir); got != want {
				t.Fatalf("after the salvage finished: %d messages, a salvage with room keeps %d", got, want)
			}
		})
		if !ok {
			break
		}
	}
	if failed == 0 {
		t.Fatal("no salvage ran out of room: the sizes tried are too large")
	}
}

// TestSalvageDiskFullAfterSwap: the disk fills up during the swap or just
// after it (before each step the tmpfs is shrunk to what it holds). The
// swap's renames need no room; opening the salvaged database and
// rebuilding the indexes do, and fail: the error says the disk is full,
// that the salvaged database is in place and where the damaged one is
// kept, and to reindex once there is room. Whatever the step, the
// original is whole under its kept name, and with room again the
// directory is finished and checks ok.
func TestSalvageDiskFullAfterSwap(t *testing.T) {
	ctx := context.Background()
	src := damagedLiveFixture(t)
	orig := treeFiles(t, src)
	db, wal := orig[engine.DatabaseFile], orig[engine.DatabaseFile+"-wal"]
	want := salvagedMessages(t, src)
	for _, step := range []string{"wal", "main", "marker", "rebuild"} {
		t.Run(step, func(t *testing.T) {
			mnt := mountTmpfs(t, 256<<20)
			dir := filepath.Join(mnt, "data")
			copyTree(t, src, dir)
			restore := engine.SetSalvageSwapHook(func(s string) error {
				if s == step {
					var st syscall.Statfs_t
					if err := syscall.Statfs(mnt, &st); err != nil {
						return err
					}
					remount(t, mnt, int64(st.Blocks-st.Bfree)*st.Bsize, false)
				}
				return nil
			})
			_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			restore()
			t.Logf("salvage: %v", err)
			if (err != nil || step == "rebuild") && (!errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "the salvaged database is in place") || !strings.Contains(err.Error(), "make room, then run reindex")) {
				t.Fatalf("the error does not say the disk is full and what to do: %v", err)
			}
			keptWhole(t, dir, db, wal, true)
			remount(t, mnt, 256<<20, false)
			finishSalvage(t, dir)
			keptWhole(t, dir, db, wal, true)
			if got := salvagedMessages(t, dir); got != want {
				t.Fatalf("after the salvage finished: %d messages, a salvage with room keeps %d", got, want)
			}
		})
	}
}

// keptWhole checks that the original database (db, with its WAL wal) is
// whole under mnemo.db or under one kept name, and under the kept name
// when swapped.
func keptWhole(t *testing.T, dir string, db, wal []byte, swapped bool) {
	t.Helper()
	path := filepath.Join(dir, engine.DatabaseFile)
	kept, _ := filepath.Glob(path + ".damaged-*")
	var main []string
	for _, k := range kept {
		if !strings.HasSuffix(k, "-wal") && !strings.HasSuffix(k, "-shm") {
			main = append(main, k)
		}
	}
	at := path
	switch {
	case len(main) == 1:
		at = main[0]
	case len(main) > 1:
		t.Fatalf("more than one kept file: %v", kept)
	case swapped:
		t.Fatalf("no kept file after the swap: %v", kept)
	}
	gotDB, err1 := os.ReadFile(at)
	gotWAL, err2 := os.ReadFile(at + "-wal")
	if err1 != nil || err2 != nil || !bytes.Equal(gotDB, db) || !bytes.Equal(gotWAL, wal) {
		t.Fatalf("the original is not whole at %s: database same %v (%v), -wal same %v (%v)", filepath.Base(at), bytes.Equal(gotDB, db), err1, bytes.Equal(gotWAL, wal), err2)
	}
}

// finishSalvage completes a salvage cut short, as a user would: salvage
// again; when the salvaged file was already in place (nothing to
// salvage), reindex; then check.
func finishSalvage(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
	if err != nil {
		t.Fatalf("salvage with room again: %v", err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("salvage with room again: problems %q", rep.Problems)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if rep.Sound {
		if err := e.Reindex(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Check(ctx); err != nil && !errors.Is(err, nil) {
		t.Fatalf("check after the salvage finished: %v", err)
	}
}

// salvagedMessages salvages a copy of dir (damaged) on a disk with room
// and returns how many messages it kept; on a salvaged dir, counts them.
func salvagedMessages(t *testing.T, dir string) int {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "cp")
	copyTree(t, dir, cp)
	if _, err := engine.Salvage(context.Background(), engine.Config{Dir: cp}, engine.SalvageOptions{}); err != nil {
		t.Fatal(err)
	}
	return len(dumpRows(t, filepath.Join(cp, engine.DatabaseFile))["messages"])
}
