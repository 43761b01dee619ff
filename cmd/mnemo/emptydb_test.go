package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestEmptyDatabaseNoIndex: a data directory whose mnemo.db has 0 bytes
// and no index beside it (`: > mnemo.db`) is refused by check and the
// other reading commands (exit 1, "database file is empty", the advice a
// backup, not salvage), and nothing is written: before, check wrote a new
// schema into the file and answered ok. A writing command (ingest) still
// writes the schema into it, as into a new file.
func TestEmptyDatabaseNoIndex(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	for _, args := range [][]string{
		{"check"}, {"check", "--json"}, {"threads"}, {"context", "--thread", "t0"}, {"search", "--resource", "r", "q"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, engine.DatabaseFile)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, env, append([]string{"--dir", dir}, args...)...)
		if code != 1 || !strings.Contains(out+errOut, "database file is empty") {
			t.Errorf("mnemo %q: exit %d, %q %q; want exit 1 saying the database file is empty", args, code, out, errOut)
		}
		if args[len(args)-1] != "--json" && !strings.Contains(errOut, "from a backup") {
			t.Errorf("mnemo %q: %q gives no advice", args, errOut)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Errorf("mnemo %q: mnemo.db was written: %v %v", args, fi, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "index")); !os.IsNotExist(err) {
			t.Errorf("mnemo %q: an index was created: %v", args, err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 2, nil)); code != 0 {
		t.Fatalf("ingest into an empty mnemo.db with no index: exit %d: %s", code, errOut)
	}
}
