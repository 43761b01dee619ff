package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestVacuumSQLite: mnemo vacuum on a data directory rewrites the SQLite
// file after an erasure (the file shrinks), says that erasure needed no
// vacuum there, and --json reports the file's sizes.
func TestVacuumSQLite(t *testing.T) {
	dir := t.TempDir()
	file := writeJSONL(t, 600, func(int) string { return strings.Repeat(" padding words to fill pages", 20) })
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "delete", "--resource", "r1", "--yes"); code != 0 {
		t.Fatalf("delete: %d %s", code, stderr)
	}
	code, stdout, stderr := run(t, nil, "--dir", dir, "vacuum")
	if code != 0 || !strings.Contains(stdout, engine.DatabaseFile) || !strings.Contains(stderr, "secure_delete") {
		t.Fatalf("vacuum: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, nil, "--dir", dir, "vacuum", "--json")
	var res engine.VacuumResult
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Backend != "sqlite" || len(res.Tables) != 1 || res.Tables[0].BytesAfter <= 0 {
		t.Fatalf("vacuum --json: exit %d %q %s", code, stdout, stderr)
	}
	if code, _, _ := run(t, nil, "--dir", dir, "vacuum", "extra"); code != 2 {
		t.Errorf("vacuum with an argument: exit %d, want 2", code)
	}
}
