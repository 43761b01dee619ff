package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestGoneDatabaseSaid: with mnemo.db gone but its write-ahead log and
// index/ there, the reads and mnemo check name them (the log's size) and
// say to restore mnemo.db before any write, not that a data directory is
// created by writing to it; check --json reports action restore; nothing
// is moved or created. Before (walk38 #4) they said only "not a mnemo data
// directory … holds no mnemo.db … a data directory is created by writing
// to it (mnemo ingest, …)", a hint that led to the write which puts the
// files aside under a new, empty database.
func TestGoneDatabaseSaid(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	if err := os.Remove(filepath.Join(dir, engine.DatabaseFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile+"-wal"), make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"threads"}, {"context", "--thread", "t0"}, {"check"}, {"backup", filepath.Join(t.TempDir(), "b")}, {"salvage"}} {
		code, _, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || strings.Contains(errOut, "created by writing to it") {
			t.Errorf("mnemo %v: exit %d, %q; want 1, and not the hint to write", args, code, errOut)
		}
		for _, want := range []string{"mnemo.db-wal (1000 bytes) and index/", "What to do: restore mnemo.db from a backup into " + dir + " before any write", "move them out of the directory first"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("mnemo %v: %q lacks %q", args, errOut, want)
			}
		}
	}
	code, out, errOut := run(t, nil, "--dir", dir, "check", "--json")
	var rep struct {
		OK       bool   `json:"ok"`
		Action   string `json:"action"`
		Problems []struct {
			Kind, Detail string
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep.OK || rep.Action != "restore" ||
		len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Detail, "mnemo.db-wal (1000 bytes)") {
		t.Errorf("check --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	ents, _ := os.ReadDir(dir)
	if got := strings.Join(names(ents), " "); got != "LOCK index mnemo.db-wal" {
		t.Errorf("after the reads the directory holds %s, want LOCK index mnemo.db-wal", got)
	}
}
