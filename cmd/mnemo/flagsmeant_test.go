package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagsAsMeant: flags that were accepted and then ignored either work
// as the user means or are refused naming what to do: context --replace
// needs the --run-id it replaces; search --thread confines the search to
// the thread (scope thread, as the MCP tool does) and is refused with an
// explicit --scope resource; demo uses --dir (new or empty) as its data
// directory and keeps it, and refuses one that holds files.
func TestFlagsAsMeant(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"a","resource":"r","role":"user","content":"the garden needs water"}
{"thread":"b","resource":"r","role":"user","content":"the garden is dry and needs water"}
{"thread":"b","resource":"r","role":"assistant","content":"water the garden tonight"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	full := filepath.Join(t.TempDir(), "full")
	os.MkdirAll(full, 0o700)
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o600)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ReplaceWithoutRunID", []string{"--dir", dir, "context", "--thread", "a", "--replace"}, 2, "--replace needs --run-id"},
		{"SearchThreadScopeResource", []string{"--dir", dir, "search", "--resource", "r", "--thread", "a", "--scope", "resource", "garden"}, 2, "--thread confines"},
		{"DemoDirNotEmpty", []string{"--dir", full, "demo"}, 2, "new or empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, c.args...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
		})
	}
	// A non-empty --dir is refused in two lines, not with every flag of
	// demo after the hint (readme54).
	t.Run("DemoDirNotEmptyLines", func(t *testing.T) {
		_, _, stderr := run(t, nil, "--dir", full, "demo")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "mnemo demo: ") || lines[1] != "Run 'mnemo help demo' for the flags." {
			t.Fatalf("stderr %q, want the hint and \"Run 'mnemo help demo' for the flags.\"", stderr)
		}
	})
	t.Run("SearchThread", func(t *testing.T) {
		code, out, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "--thread", "a", "--json", "garden water")
		if code != 0 {
			t.Fatalf("exit %d, %s", code, stderr)
		}
		var res struct{ Hits []struct{ ThreadID string } }
		json.Unmarshal([]byte(out), &res)
		if len(res.Hits) == 0 {
			t.Fatal("no hit")
		}
		for _, h := range res.Hits {
			if h.ThreadID != "a" {
				t.Fatalf("hit of thread %s: --thread a searched the resource", h.ThreadID)
			}
		}
	})
	t.Run("DemoDir", func(t *testing.T) {
		demo := filepath.Join(t.TempDir(), "demo")
		code, out, stderr := run(t, nil, "--dir", demo, "demo")
		if code != 0 {
			t.Fatalf("exit %d, %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(demo, "mnemo.db")); err != nil || !strings.Contains(out, "data directory: "+demo+" (kept)") {
			t.Fatalf("demo --dir %s: %v; out %.200q", demo, err, out)
		}
		if code, _, stderr := run(t, nil, "--dir", demo, "memctx", "demo-run-1"); code != 0 {
			t.Fatalf("memctx of the kept demo: exit %d, %s", code, stderr)
		}
	})
}
