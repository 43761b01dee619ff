package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCheckStrayLog: a file of the data directory that begins as a SQLite
// write-ahead log but is neither mnemo.db-wal nor a kept copy (a
// mnemo.db-wal moved by hand under a running server: mv mnemo.db-wal
// moved-wal) is a note of a passing check naming it, and listed in
// --json's strayLogs; a file that is no log is not. Before, nothing named
// it, and it holds the text of every message written to it, which no
// erasure reaches (readme71 F5).
func TestCheckStrayLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "the ferry left at noon"})); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"moved-wal": log, "notes.txt": []byte("the ferry left at noon")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := run(t, nil, "--dir", dir, "check")
	if code != 0 || !strings.Contains(stderr, "mnemo check: note: moved-wal begins as a SQLite write-ahead log but is no file mnemo keeps") ||
		strings.Contains(stderr, "notes.txt") {
		t.Fatalf("check: exit %d, want 0 and a note naming moved-wal alone\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "check", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || len(rep.StrayLogs) != 1 || rep.StrayLogs[0] != "moved-wal" {
		t.Fatalf("check --json: exit %d (%v), strayLogs %v, want [moved-wal]\n%s%s", code, err, rep.StrayLogs, out, stderr)
	}
}
