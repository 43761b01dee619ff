package main

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestDatabaseLocked: lock53. While another connection (outside mnemo's,
// as a sqlite3 shell of another process) holds mnemo.db after PRAGMA
// locking_mode=EXCLUSIVE and a write, a command that opens the directory
// waits SQLite's busy timeout (10 s) and fails (exit 1) saying another
// program holds the database locked and how to find it, not a bare
// "database is locked (5) (SQLITE_BUSY)", nor that a write was busy (it
// is a read). Once that connection closes, the command runs. Takes 10 s.
func TestDatabaseLocked(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	dir := t.TempDir()
	if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 2, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	path := filepath.Join(dir, engine.DatabaseFile)
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA locking_mode=EXCLUSIVE`, `CREATE TABLE lock53 (n INTEGER)`} {
		if _, err := other.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	code, _, errOut := run(t, env, "--dir", dir, "threads")
	for _, want := range []string{"another program holds the database file locked", "What to do: another program holds " + path, "fuser -v " + path} {
		if !strings.Contains(errOut, want) {
			t.Errorf("threads behind another connection's exclusive lock: %q lacks %q", errOut, want)
		}
	}
	if code != 1 || strings.Contains(errOut, "write lock") || strings.Contains(errOut, "other writers") {
		t.Errorf("threads behind another connection's exclusive lock: exit %d, %q; want exit 1, no busy write", code, errOut)
	}
	other.Close()
	if code, _, errOut := run(t, env, "--dir", dir, "threads"); code != 0 {
		t.Errorf("threads once the other connection closed: exit %d: %s", code, errOut)
	}
}
