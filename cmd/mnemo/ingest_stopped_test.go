package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestStoppedPartWay: an ingest the engine stops part-way (here a
// quota that refuses: resource "ana" may hold 10 messages) says where it
// stopped, what is stored and what is not, and that running it again is
// safe; --json carries error, stopped, stoppedThread and notStored; the
// rerun, once the quota is lifted, stores only the rest. Before (walk35),
// a first thread over the bound gave "no messages read, nothing stored",
// a later one "9 messages stored" and the bare quota error, and the --json
// report had no member saying it stopped.
func TestIngestStoppedPartWay(t *testing.T) {
	var b strings.Builder
	line := func(thread string, i int) {
		fmt.Fprintf(&b, `{"thread":%q,"resource":"ana","id":"%s-%d","role":"user","content":"message %d"}`+"\n", thread, thread, i, i)
	}
	for i := range 3 {
		line("t1", i)
	}
	for i := range 6 {
		line("t2", i)
	}
	for i := range 12 {
		line("t3", i)
	}
	file := filepath.Join(t.TempDir(), "reord.jsonl")
	os.WriteFile(file, []byte(b.String()), 0o600)
	quota := func(dir, config string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	refuse := `{"lifecycle":{"quota":{"resourceMessages":10,"refuse":true}}}`

	dir := filepath.Join(t.TempDir(), "data")
	quota(dir, refuse)
	code, out, stderr := run(t, nil, "--dir", dir, "ingest", file)
	wantOut := file + " (jsonl): 1 resource, 2 threads, 9 messages stored, 0 already stored, 0 skipped, stopped at line 10\n"
	wantErr := file + ": stopped at line 10 (thread t3): quota exceeded: resource \"ana\" would hold 21 messages, bound 10; 9 messages of it are stored and stay; not stored: 12 messages of thread t3 from there and every record after them; once the cause is fixed, run the same ingest again to store the rest (messages already stored are not stored twice)"
	if code != 1 || out != wantOut || !strings.Contains(stderr, wantErr) {
		t.Fatalf("ingest over the quota: exit %d\nstdout %q\nstderr %q\nwant exit 1\nstdout %q\nstderr containing %q", code, out, stderr, wantOut, wantErr)
	}

	// The first thread already over the bound: nothing stored, said so
	// with where, not "no messages read".
	dir2 := filepath.Join(t.TempDir(), "data")
	quota(dir2, `{"lifecycle":{"quota":{"resourceMessages":2,"refuse":true}}}`)
	code, out, stderr = run(t, nil, "--dir", dir2, "ingest", "--json", file)
	wantJSON := `{"file":"` + file + `","format":"jsonl","resources":0,"threads":0,"messages":0,"duplicates":0,"skipped":0,"stopped":"line 1","error":"quota exceeded: resource \"ana\" would hold 3 messages, bound 2","stoppedThread":"t1","notStored":3,"unstored":0}` + "\n"
	if code != 1 || out != wantJSON || !strings.Contains(stderr, "stopped at line 1 (thread t1)") || !strings.Contains(stderr, "none of its messages is stored") {
		t.Fatalf("ingest --json, first thread over the quota: exit %d\nstdout %q\nstderr %q\nwant exit 1, stdout %q", code, out, stderr, wantJSON)
	}

	// Rerun with the quota lifted: only the rest is stored.
	quota(dir, `{}`)
	code, out, stderr = run(t, nil, "--dir", dir, "ingest", file)
	if want := file + " (jsonl): 1 resource, 3 threads, 12 messages stored, 9 already stored, 0 skipped\n"; code != 0 || out != want {
		t.Fatalf("rerun: exit %d, stdout %q (%s); want %q", code, out, stderr, want)
	}
}
