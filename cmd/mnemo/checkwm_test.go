package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckStoredWorkingMemory: a working-memory configuration stored in
// the database that does not build here (engine.ErrStoredWorkingMemory: a
// newer build's mode) is a finding of check, text and --json (kind
// workingMemory, action config), exit 1, with its text and what to do.
// Before, check said "ok: …" and exited 0 (--json: ok true, no problems)
// while every context failed.
func TestCheckStoredWorkingMemory(t *testing.T) {
	dir := t.TempDir()
	brokenWorkingConfig(t, dir)
	const want = `the working-memory configuration stored in the database does not build (mode "patch", scope "thread")`
	code, stdout, stderr := run(t, nil, "--dir", dir, "check")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "mnemo check: the working-memory configuration stored in the database does not build:\n  ") ||
		!strings.Contains(stderr, want) || !strings.Contains(stderr, "What to do: replace it: start mnemo serve once with a --config FILE that has a \"workingMemory\" member (a schema, schemaFile or template; docs/serve.md#mnemo-json): mnemo --dir "+dir+" serve --config FILE\n") ||
		!strings.Contains(stderr, "Every context, wm set, working-memory route and working-memory tool answer fails until it is replaced; wm get and wm history read the stored states as they are") ||
		!strings.HasSuffix(stderr, "mnemo check: 1 problem (listed above)\n") {
		t.Errorf("check: exit %d, stdout %q, stderr %q; want exit 1, the stored working memory as the one problem, what to do", code, stdout, stderr)
	}
	code, stdout, _ = run(t, nil, "--dir", dir, "check", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("check --json: %v: %q", err, stdout)
	}
	if code != 1 || rep.OK || rep.Action != "config" || len(rep.Problems) != 1 || rep.Problems[0].Kind != "workingMemory" || !strings.Contains(rep.Problems[0].Detail, want) {
		t.Errorf("check --json: exit %d, %+v; want exit 1, ok false, action config, one problem of kind workingMemory naming %q", code, rep, want)
	}
}

// brokenWorkingConfig makes dir a data directory with messages whose
// stored working-memory configuration names a mode this build does not
// know, and no mnemo.json.
func brokenWorkingConfig(t *testing.T, dir string) {
	t.Helper()
	cfg := filepath.Join(dir, StoredConfigFile)
	if err := os.WriteFile(cfg, []byte(`{"workingMemory":{"template":"# Notes\n"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`UPDATE working_config SET config = '{"mode":"patch","scope":"thread"}' WHERE id = 1`)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("working_config rows updated: %d, %v", n, err)
	}
}
