//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadCommandsOnFullDisk: readme51 F3. On a full disk whose lexical
// index was gone (quarantined by an earlier full disk, or moved away),
// every command failed "open lexical index …: write index_meta.json: no
// space left", threads, messages and export too, and no message said how
// to get the data out. Now the commands that only read open without the
// index, and a command's no-space error names mnemo backup DEST. Needs
// root (a tmpfs).
func TestReadCommandsOnFullDisk(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=3m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "d")
	var lines strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&lines, `{"thread":"t%d","resource":"r","role":"user","content":"message %d about sailing %s"}`+"\n", i/500, i, strings.Repeat("z", 200))
	}
	src := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(src, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "--dir", dir, "ingest", src)
	if code != 1 || !strings.Contains(stderr, "no space left") {
		t.Fatalf("ingest of 20,000 messages into 3 MiB: exit %d, %s, want the no-space stop", code, stderr)
	}
	if !strings.Contains(stderr, "backup DEST") {
		t.Errorf("ingest's no-space error names no way out: %s", stderr)
	}
	if err := os.Rename(filepath.Join(dir, "index", "lexical"), filepath.Join(mnt, "lexical.moved")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	for _, args := range [][]string{{"threads"}, {"messages", "--thread", "t0"}, {"export", out}} {
		code, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 0 || (args[0] != "export" && !strings.Contains(stdout, "t0") && !strings.Contains(stdout, "sailing")) {
			t.Errorf("mnemo %s on the full disk without an index: exit %d, %s%s, want the stored data", args[0], code, stdout, stderr)
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "message 0 about sailing") {
		t.Errorf("export on the full disk without an index: %v, want the messages", err)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "search", "--resource", "r", "sailing")
	if code != 1 || !strings.Contains(stderr, "no space left") || !strings.Contains(stderr, ": mnemo --dir "+dir+" backup DEST\n") {
		t.Errorf("search on the full disk without an index: exit %d, %s, want the no-space error naming mnemo backup DEST", code, stderr)
	}
}
