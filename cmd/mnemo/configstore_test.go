package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoredConfigNotThroughSymlink: storing mnemo.json never writes
// through a symlink planted in the data directory at the temporary file's
// name (it wrote through "mnemo.json.tmp", emptying the link's target),
// and leaves no temporary file behind.
func TestStoredConfigNotThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, StoredConfigFile+".tmp")); err != nil {
		t.Fatal(err)
	}
	if err := (&memoryConfig{}).store(dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me\n" {
		t.Fatalf("the symlink's target holds %q (%v), want it untouched", b, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, StoredConfigFile))
	if err != nil || !strings.HasPrefix(string(b), "{") {
		t.Fatalf("%s: %q (%v), want a JSON object", StoredConfigFile, b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, StoredConfigFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: mode %v (%v), want 0600", StoredConfigFile, fi.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, StoredConfigFile+".tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
