package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestTotal: with several FILEs, ingest's total (the "total:" line,
// the --json report) sums each FILE's counts, resources and threads too:
// the same file given twice counts its one resource twice, as docs/cli.md
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
		{"JSON", []string{"ingest", "--json", file, file}, `{"file":"","format":"","resources":2,"threads":4,"messages":2,"duplicates":2,"skipped":0,"unstored":0}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
			if code != 0 || !strings.HasSuffix(out, c.want) {
				t.Fatalf("exit %d, out %q (%s); want it to end %q", code, out, stderr, c.want)
			}
		})
	}
}

// TestIngestStdinTwice: "-" named more than once is a usage error naming
// it, before anything is opened or read. Before, `mnemo ingest - -` read
// standard input for the first and reported the second as an empty file.
func TestIngestStdinTwice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}`+"\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "-", "-"}, "mnemo ingest: - (standard input) is named 2 times: it can be read once, so name it once"},
		{[]string{"ingest", "--json", "-", file, "-", "-"}, "mnemo ingest: - (standard input) is named 3 times: it can be read once, so name it once"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		// A value error: the line and the help hint, not the usage.
		if want := c.want + "\nRun 'mnemo help ingest' for the flags.\n"; code != 2 || out != "" || stderr != want {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q", strings.Join(c.args, " "), code, out, stderr, want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("mnemo %s: the data directory was created (%v)", strings.Join(c.args, " "), err)
		}
	}
}

// TestIngestJSONNoReport: with --json, an ingest of several FILEs that
// fails before any import began (standard input empty, so of no format)
// prints nothing on standard output, as the --json contract says. Before,
// it printed the text "total: 0 resources, …" line there.
func TestIngestJSONNoReport(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}`+"\n"), 0o600)
	code, out, stderr := run(t, nil, "--dir", t.TempDir(), "ingest", "--json", "-", file)
	if code != 1 || out != "" || !strings.Contains(stderr, "stdin") {
		t.Errorf("ingest --json - FILE with nothing on stdin: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, an error naming stdin", code, out, stderr)
	}
}
