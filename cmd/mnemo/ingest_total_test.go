package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestTotal: with several FILEs, ingest's total (the "total:" line,
// the --json report) sums each FILE's counts, resources and threads too:
// the same file given twice counts its one resource twice, as the README
// and importer.Report say. Distinct counts would need the ids of every
// FILE; `mnemo threads` lists what is stored.
func TestIngestTotal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}
{"thread":"t2","resource":"r","id":"m2","role":"user","content":"one"}
`), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"Text", []string{"ingest", file, file}, "total: 2 resources, 4 threads, 2 messages stored, 2 already stored, 0 skipped\n"},
		{"JSON", []string{"ingest", "--json", file, file}, `{"file":"","format":"","resources":2,"threads":4,"messages":2,"duplicates":2,"skipped":0}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			if code != 0 || !strings.HasSuffix(out, c.want) {
				t.Fatalf("exit %d, out %q (%s); want it to end %q", code, out, stderr, c.want)
			}
		})
	}
}
