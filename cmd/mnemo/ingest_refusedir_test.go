package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestRefusedLeavesNoDataDir: a refused `mnemo ingest -` (input of
// no format, empty, past --max-spool, not of the --format given, a
// malformed record under --strict, no record imported) exits 1 and leaves
// no data directory where none existed, nor the parents it would have
// created; a directory that existed before stays. Before, the refusals
// found after the data directory was opened (--format given) left an empty
// data directory behind.
func TestIngestRefusedLeavesNoDataDir(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		flags       []string
	}{
		{"auto-garbage", "garbage\n", nil},
		{"auto-empty", "", nil},
		{"max-spool", strings.Repeat("x", 2000), []string{"--max-spool", "1000"}},
		{"jsonl-garbage", "garbage\n", []string{"--format", "jsonl"}},
		{"jsonl-strict", "garbage\n", []string{"--format", "jsonl", "--strict"}},
		{"locomo-garbage", "garbage\n", []string{"--format", "locomo"}},
		{"longmemeval-object", "{}\n", []string{"--format", "longmemeval"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "a", "data")
			args := append(append([]string{"--dir", dir, "--embedder", "hash-384", "ingest"}, tc.flags...), "-")
			code, _, stderr := runStdin(t, tc.stdin, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, stderr)
			}
			if _, err := os.Lstat(filepath.Join(base, "a")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused ingest left %s (%v): %s", filepath.Join(base, "a"), err, stderr)
			}

			// A directory that existed stays, with what the command put in it.
			existing := t.TempDir()
			args = append(append([]string{"--dir", existing, "--embedder", "hash-384", "ingest"}, tc.flags...), "-")
			if code, _, stderr := runStdin(t, tc.stdin, args...); code != 1 {
				t.Fatalf("exit %d into an existing directory, want 1: %s", code, stderr)
			}
			if fi, err := os.Stat(existing); err != nil || !fi.IsDir() {
				t.Fatalf("the existing directory %s was removed: %v", existing, err)
			}
		})
	}
}
