package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestIngestEmptyInput: an input of JSONL that holds no record (empty, or
// blank lines: a filter that matched nothing) says "no messages read,
// nothing stored", exits 0 as it did, and leaves no data directory (nor
// the parents it would have created) where none existed; a directory that
// existed stays. Standard input and a FILE behave alike. Before, both
// printed a row of zero counts and left a new, empty data directory.
func TestIngestEmptyInput(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"stdin", "", []string{"--format", "jsonl", "-"}, "stdin (jsonl): no messages read, nothing stored\n"},
		{"stdin-blank", "\n \n", []string{"--format", "jsonl", "-"}, "stdin (jsonl): no messages read, nothing stored\n"},
		{"file", "", []string{"--format", "jsonl", empty}, empty + " (jsonl): no messages read, nothing stored\n"},
		{"file-auto", "", []string{empty}, empty + " (jsonl): no messages read, nothing stored\n"},
		{"two", "", []string{"--format", "jsonl", empty, "-"}, empty + " (jsonl): no messages read, nothing stored\nstdin (jsonl): no messages read, nothing stored\ntotal: no messages read, nothing stored\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "a", "data")
			code, out, stderr := runStdin(t, tc.stdin, append([]string{"--dir", dir, "--embedder", "hash-384", "ingest"}, tc.args...)...)
			if code != 0 || out != tc.want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, stderr, tc.want)
			}
			if _, err := os.Lstat(filepath.Join(base, "a")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("an empty ingest left %s (%v)", filepath.Join(base, "a"), err)
			}
			existing := t.TempDir()
			if code, _, stderr := runStdin(t, tc.stdin, append([]string{"--dir", existing, "--embedder", "hash-384", "ingest"}, tc.args...)...); code != 0 {
				t.Fatalf("exit %d into an existing directory, want 0: %s", code, stderr)
			}
			if fi, err := os.Stat(existing); err != nil || !fi.IsDir() {
				t.Fatalf("the existing directory %s was removed: %v", existing, err)
			}
		})
	}
	// An empty FILE beside one with messages: the directory is kept.
	full := filepath.Join(t.TempDir(), "full.jsonl")
	if err := os.WriteFile(full, []byte(`{"thread":"t1","resource":"r1","role":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	code, out, stderr := runStdin(t, "", "--dir", dir, "--embedder", "hash-384", "ingest", empty, full)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := empty + " (jsonl): no messages read, nothing stored\n" + full + " (jsonl): 1 resource, 1 thread, 1 message stored, 0 already stored, 0 skipped\ntotal: 1 resource, 1 thread, 1 message stored, 0 already stored, 0 skipped\n"; out != want {
		t.Fatalf("stdout %q, want %q", out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "mnemo.db")); err != nil {
		t.Fatalf("the data directory of a stored message: %v", err)
	}
}
