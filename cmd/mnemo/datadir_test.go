package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadNeedsDataDir: a read command on a path that holds no memory fails
// with a clear message and creates nothing (before: `mnemo --dir
// /nonexistent/x threads` created the directory and printed an empty
// list); a writing command creates the directory.
func TestReadNeedsDataDir(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "nonexistent", "x")
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{missing, empty} {
		for _, args := range [][]string{
			{"threads"}, {"messages", "--thread", "t"}, {"runs"}, {"check"}, {"search", "--resource", "r", "q"},
			{"wm", "get", "--thread", "t"}, {"delete", "--thread", "t", "--yes"}, {"reindex"}, {"vacuum"},
		} {
			code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
			if code != 1 || !strings.Contains(stderr, "not a mnemo data directory") || !strings.Contains(stderr, "--dir") {
				t.Errorf("%v on %s: exit %d, %q; want 1 and a message naming the problem", args, dir, code, stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(base, "nonexistent")); err == nil {
		t.Error("a read command created the missing directory")
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("a read command wrote into an empty directory: %v", ents)
	}
	file := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", missing, "ingest", file); code != 0 {
		t.Fatalf("ingest into a new directory: exit %d, %s", code, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", missing, "threads"); code != 0 || !strings.Contains(out, "t ") {
		t.Fatalf("threads after ingest: exit %d, %s%s", code, out, stderr)
	}
}

// TestIngestUnreadableFile: a FILE that cannot be read (missing, or a
// directory), or of no format mnemo reads (with --format auto; before, a
// good FILE before it was stored, and the data directory created), fails
// ingest before anything is stored: exit 1, the file and
// the reason once on standard error, standard output empty with --json or
// without (before: an all-zero report, "file": ""), no data directory
// created, and a good FILE before it not stored either.
func TestIngestUnreadableFile(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	good := filepath.Join(base, "m.jsonl")
	os.WriteFile(good, []byte(`{"thread":"t","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600)
	missing := filepath.Join(base, "missing.jsonl")
	bad := filepath.Join(base, "notes.json") // no format mnemo reads
	os.WriteFile(bad, []byte("garbage\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", missing}, missing + ": no such file or directory"},
		{[]string{missing}, missing + ": no such file or directory"},
		{[]string{"--json", good, missing}, missing + ": no such file or directory"},
		{[]string{"--json", base}, base + ": is a directory"},
		{[]string{bad}, bad + ": unknown format"},
		{[]string{"--json", good, bad}, bad + ": unknown format"},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir, "ingest"}, c.args...)...)
		if code != 1 || out != "" || !strings.HasPrefix(stderr, "mnemo ingest: "+c.want) || strings.Count(stderr, c.want) != 1 {
			t.Errorf("ingest %q: exit %d, stdout %q, stderr %q; want 1, nothing, %q", c.args, code, out, stderr, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("ingest %q created the data directory", c.args)
		}
	}
}

// TestIngestStrictPartial: --strict stops at the first malformed record
// after storing the records before it; ingest says so and exits 1 (before:
// silently, with the usage exit code 2 when the record broke a validation
// rule).
func TestIngestStrictPartial(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"one"}
{"thread":"t","resource":"r","role":"user","content":"two"}
{"thread":"t","resource":"r","role":"bogus","content":"three"}
{"thread":"t","resource":"r","role":"user","content":"four"}
`), 0o600)
	dir := t.TempDir()
	code, stdout, stderr := run(t, nil, "--dir", dir, "ingest", "--strict", file)
	if code != 1 || !strings.Contains(stderr, "the 2 messages before it are stored and stay stored") || !strings.Contains(stderr, "line 3") {
		t.Fatalf("ingest --strict: exit %d, %q; want 1 and what was stored", code, stderr)
	}
	// The error names the file once, the record's line and its field as the
	// file spells it (before: "FILE: importer: FILE: line 3: engine:
	// invalid messages[0].role: …"); the summary says the import stopped
	// there rather than counting the record as skipped.
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got, want := lines[len(lines)-1], "mnemo ingest: "+file+` line 3: invalid role: must be user, assistant or tool, got "bogus"`; got != want {
		t.Errorf("ingest --strict error:\n got %s\nwant %s", got, want)
	}
	if want := "2 messages stored, 0 already stored, 0 skipped, stopped at line 3 (--strict)\n"; !strings.HasSuffix(stdout, want) {
		t.Errorf("ingest --strict summary %q, want it to end %q", stdout, want)
	}
	if n := strings.Count(stderr, `got "bogus"`); n != 1 {
		t.Fatalf("ingest --strict names the record that stopped it %d times, want once:\n%s", n, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", t.TempDir(), "ingest", "--strict", "--json", file); code != 1 || !strings.Contains(out, `"skipped":0,"stopped":"line 3"`) {
		t.Errorf("ingest --strict --json: exit %d, %s; want skipped 0, stopped at line 3", code, out)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "messages", "--thread", "t"); code != 0 || !strings.Contains(out, "two") || strings.Contains(out, "four") {
		t.Fatalf("messages after the partial ingest: exit %d\n%s", code, out)
	}
	// Again into the same directory: the two messages were stored by the
	// first import (before: "0 messages before it were stored").
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", "--strict", file); code != 1 || !strings.Contains(stderr, "the 2 messages before it are stored (2 of them by an earlier import) and stay stored") {
		t.Errorf("ingest --strict again: exit %d, %q; want the 2 messages stored by the first import", code, stderr)
	}
}

// TestIngestStrictOneStored: one message stored before the stopping record
// is said in the singular (before: "the 1 messages before it are stored").
func TestIngestStrictOneStored(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"one"}
{bad
`), 0o600)
	code, _, stderr := run(t, nil, "--dir", t.TempDir(), "ingest", "--strict", file)
	if code != 1 || !strings.Contains(stderr, "the message before it is stored and stays stored") {
		t.Fatalf("ingest --strict: exit %d, %q; want the one message stored, in the singular", code, stderr)
	}
}
