//go:build linux

package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLexicalDiskFull: readme48 F1. A batch whose persist found the disk
// full failed, and bleve closed its segment while the index still held it:
// the next batch panicked inside bleve ("assignment to entry in nil map"),
// which was taken for damage, and the engine quarantined the index. Now
// every batch on the full disk fails with an error matching NoSpace, the
// index is not damaged and answers for every document (those it could not
// write from memory), and once there is room a batch persists and a reopen
// finds them all. Needs root (a tmpfs).
func TestLexicalDiskFull(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4194304,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	path := filepath.Join(dir, "lex")
	l, err := OpenLexical(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.Close() }()
	doc := func(i int) Doc {
		return Doc{ID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: "r", Content: strings.Repeat(fmt.Sprintf("lantern%d ", i), 300)}
	}
	if err := l.Index([]Doc{doc(0)}); err != nil {
		t.Fatal(err)
	}
	filler := fillTmpfs(t, dir)
	const batches = 6
	for i := 1; i <= batches; i++ {
		err := l.Index([]Doc{doc(i)})
		if !NoSpace(err) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("batch %d on the full disk: %v, want an error for lack of room, no damage", i, err)
		}
	}
	if err := l.Damaged(); err != nil {
		t.Fatalf("a full disk was taken for damage: %v", err)
	}
	ids, err := l.IDs(context.Background())
	if err != nil || len(ids) != batches+1 {
		t.Fatalf("ids on the full disk: %d %v, want %d and no error", len(ids), err, batches+1)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := l.Index([]Doc{doc(batches + 1)}); err != nil {
		t.Fatalf("batch once there is room: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = OpenLexical(path); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Count(); err != nil || n != batches+2 {
		t.Fatalf("count after a reopen: %d %v, want %d", n, err, batches+2)
	}
}

// fillTmpfs writes a file in dir until its disk is full and returns its
// path.
func fillTmpfs(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return p
			}
			t.Fatal(err)
		}
	}
}
