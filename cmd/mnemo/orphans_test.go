package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestOrphansKeptSaid: on a data directory whose mnemo.db is gone beside
// the write-ahead log of a crash and the indexes (walk35 item 12: a cp -a
// of a directory a kill -9 left, then mnemo.db removed), a read refuses
// as before, and mnemo ingest keeps the log, its -shm and index/ aside
// (mnemo.db.damaged-<time>-wal, -shm, -index), says so on stderr, and
// creates a new database; mnemo check lists the kept files. Before,
// ingest deleted index/ and the log (the only copy of the text) without
// a word.
func TestOrphansKeptSaid(t *testing.T) {
	dir := storedDir(t, engine.Config{}, true, inThreadT(engine.Message{Role: "user", Content: "the harbour at dusk"}))
	if err := os.Remove(filepath.Join(dir, engine.DatabaseFile)); err != nil {
		t.Fatal(err)
	}
	copyLiveLog(t, dir)
	if code, out, stderr := run(t, nil, "--dir", dir, "threads"); code != 1 || !strings.Contains(stderr, "not a mnemo data directory") {
		t.Fatalf("threads: exit %d\n%s%s", code, out, stderr)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t2","resource":"r","role":"user","content":"a new beginning"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "ingest", in)
	kept, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+".damaged-*"))
	if code != 0 || len(kept) != 3 {
		t.Fatalf("ingest: exit %d, kept %v\n%s%s", code, kept, out, stderr)
	}
	for _, want := range []string{"mnemo: warning: mnemo.db was missing", "only copy of its text", "-wal, ", "-shm, ", "-index; a new, empty mnemo.db was created"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("ingest's stderr lacks %q:\n%s", want, stderr)
		}
	}
	if b, err := os.ReadFile(kept[2]); err != nil || !strings.Contains(string(b), "the kraken sleeps") {
		t.Errorf("the kept log %s lacks the text of its commit (%v)", kept[2], err)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check")
	if code != 0 || !strings.Contains(out, "kept beside no database file: mnemo.db.damaged-") {
		t.Errorf("check: exit %d\n%s%s", code, out, stderr)
	}
}

// copyLiveLog puts in dir the -wal and -shm of an engine open on another
// directory, with an append in its log: a crash image's.
func copyLiveLog(t *testing.T, dir string) {
	t.Helper()
	live := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Dir: live})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(context.Background(), inThreadT(engine.Message{Role: "user", Content: "the kraken sleeps"})); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{engine.DatabaseFile + "-wal", engine.DatabaseFile + "-shm"} {
		b, err := os.ReadFile(filepath.Join(live, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
