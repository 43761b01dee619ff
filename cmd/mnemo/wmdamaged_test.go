package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestWMStoredConfigDamaged is walk41 #6: with a working-memory
// configuration stored in the database that does not build
// (engine.ErrStoredWorkingMemory), mnemo context failed but wm set stored
// new versions as if none were configured (a JSON file over a template
// state as markdown, with or without --schema), and wm get read as if
// none were. Now wm set is refused with context's error, flags or not,
// and stores nothing; wm get and wm history read the states as stored,
// saying on stderr that the configuration does not build.
func TestWMStoredConfigDamaged(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, StoredConfigFile)
	if err := os.WriteFile(cfg, []byte(`{"workingMemory":{"template":"# Notes\n"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runStdin(t, "# Notes\n- Ana\n", "--dir", dir, "wm", "set", "--thread", "t0", "-"); code != 0 {
		t.Fatalf("wm set: exit %d: %s", code, stderr)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE working_config SET config = '{"mode":"telepathy","scope":"thread"}' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	code, _, ctxErr := run(t, nil, "--dir", dir, "context", "--thread", "t0")
	refusal, ok := strings.CutPrefix(ctxErr, "mnemo context: ")
	if code != 1 || !ok || !strings.Contains(refusal, `the working-memory configuration stored in the database does not build (mode "telepathy", scope "thread")`) {
		t.Fatalf("context: exit %d, %q; want the stored configuration's error", code, ctxErr)
	}
	schema := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(schema, []byte(`{"type":"object"}`), 0o600)
	for _, args := range [][]string{
		{"wm", "set", "--thread", "t0", "-"},
		{"wm", "set", "--thread", "t0", "--no-validate", "-"},
		{"wm", "set", "--thread", "t0", "--schema", schema, "-"},
		{"wm", "set", "--thread", "t0", "--markdown", "-"},
	} {
		code, out, errOut := runStdin(t, `{"city":"Oslo"}`, append([]string{"--dir", dir}, args...)...)
		if code != 1 || out != "" || errOut != "mnemo wm set: "+refusal {
			t.Errorf("%q: exit %d, %q, %q; want exit 1 with context's error %q", args, code, out, errOut, refusal)
		}
	}
	for _, sub := range []string{"get", "history"} {
		code, out, errOut := run(t, nil, "--dir", dir, "wm", sub, "--thread", "t0")
		if code != 0 || !strings.Contains(out, "version 1") || !strings.Contains(out, "- Ana") || strings.Contains(out, "version 2") ||
			!strings.Contains(errOut, "mnemo wm "+sub+": note: the working-memory configuration stored in the database does not build") ||
			!strings.Contains(errOut, "wm set is refused until it is replaced") {
			t.Errorf("wm %s: exit %d\n%s\n%s\nwant the stored template state v1 alone, and the note", sub, code, out, errOut)
		}
	}
}
