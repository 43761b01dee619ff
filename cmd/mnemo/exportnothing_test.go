package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExportRefusalPlain: an export refused before it writes a line
// (--resource or --thread naming nothing stored) says plainly that
// nothing was written, to standard output or to FILE; it said "(stopped
// after 0 messages: nothing was written)" (cli9's leftover).
func TestExportRefusalPlain(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "out.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--resource", "nope", "-"}, `resource not found: "nope": no thread and no working-memory state (nothing was written)`},
		{[]string{"--resource", "nope", file}, `resource not found: "nope": no thread and no working-memory state (nothing was written to ` + file + ")"},
		{[]string{"--thread", "nope", "-"}, `thread not found: "nope" (nothing was written)`},
	} {
		code, _, errOut := run(t, nil, append([]string{"--dir", dir, "export"}, c.args...)...)
		if code != 1 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "stopped after") {
			t.Errorf("export %v: exit %d, %q; want 1 and %q", c.args, code, errOut, c.want)
		}
	}
}
