package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportResourceNotFound: `mnemo export --resource R` for an R with no
// thread and no working-memory state is refused as --thread's unknown
// thread is (exit 1, the id named, nothing written: no FILE, nothing on
// standard output). Before (walk38 #2) it printed "exported 0 resources,
// 0 threads, 0 messages to F", exit 0, and left an empty F.
func TestExportResourceNotFound(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "d")
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	file := filepath.Join(tmp, "nope.jsonl")
	for _, args := range [][]string{
		{"export", "--resource", "nope", file},
		{"export", "--resource", "nope", "--json", file},
		{"export", "--resource", "nope"},
		{"export", "--resource", "nope", "-"},
	} {
		code, out, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || out != "" || !strings.Contains(errOut, `resource not found: "nope"`) || !strings.Contains(errOut, "nothing was written") {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q; want 1, nothing on stdout, the resource named, nothing was written", args, code, out, errOut)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("mnemo %v left %s: %v", args, file, err)
		}
	}
	// --thread's refusals to standard output said "what was written is
	// incomplete" of no line.
	for _, args := range [][]string{{"export", "--thread", "nope"}, {"export", "--thread", "t0", "--resource", "r1"}} {
		code, out, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || out != "" || !strings.Contains(errOut, "nothing was written") || strings.Contains(errOut, "incomplete") {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q; want 1, nothing was written", args, code, out, errOut)
		}
	}
	code, _, errOut := run(t, nil, "--dir", dir, "export", "--resource", "r0", file)
	if code != 0 {
		t.Fatalf("export --resource r0: exit %d: %s", code, errOut)
	}
}
