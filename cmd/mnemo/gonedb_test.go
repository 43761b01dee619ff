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

// TestGoneDatabaseLinkSaid: with mnemo.db a symbolic link to a file that
// does not exist beside its log and index/ (a volume not mounted), the
// reads, mnemo check and a write (ingest) all say the same: the link and
// its target, to make the target reachable again or restore mnemo.db,
// keeping the log beside the very file it was written with; check --json
// reports action restore; nothing is moved or created. Before (walk39
// #4), the reads said a write would create a new database and keep the
// files aside, and ingest refused the link as a corrupt database and
// advised deleting mnemo.db-wal, perhaps the only copy of its commits.
func TestGoneDatabaseLinkSaid(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	link := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(link+"-wal", make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "volume", engine.DatabaseFile)
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	for _, args := range [][]string{{"threads"}, {"check"}, {"ingest", writeJSONL(t, 1, nil)}} {
		code, _, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 1 || strings.Contains(errOut, "a write creates") || strings.Contains(errOut, "delete mnemo.db-wal") {
			t.Errorf("mnemo %s: exit %d, %q; want 1, neither a write that creates a database nor deleting the log", args[0], code, errOut)
		}
		for _, want := range []string{
			link + " is a symbolic link to " + target + ", which does not exist, and the mnemo.db-wal (1000 bytes) and index/",
			"What to do: make " + target + " reachable again",
			"leave mnemo.db-wal and -shm beside it",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("mnemo %s: %q lacks %q", args[0], errOut, want)
			}
		}
	}
	code, out, errOut := run(t, nil, "--dir", dir, "check", "--json")
	var rep struct {
		Action   string                    `json:"action"`
		Problems []struct{ Detail string } `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep.Action != "restore" ||
		len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Detail, "is a symbolic link to "+target) {
		t.Errorf("check --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	ents, _ := os.ReadDir(dir)
	if got := strings.Join(names(ents), " "); got != "LOCK index mnemo.db mnemo.db-wal" {
		t.Errorf("after the commands the directory holds %s, want LOCK index mnemo.db mnemo.db-wal", got)
	}
}
