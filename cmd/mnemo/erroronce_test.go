package main

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	_ "modernc.org/sqlite"
)

// pkgPrefixes are the Go package names the library's errors begin with;
// the CLI's messages say none of them.
var pkgPrefixes = []string{"engine: ", "pgstore: ", "store: ", "msgstore: ", "journal: ", "working: "}

// checkSaysOnce fails unless stderr's first line names each of once exactly
// once, says each of want, and no package prefix ("engine: pgstore: open
// …: pgstore: …" before).
func checkSaysOnce(t *testing.T, stderr string, once, want []string) {
	t.Helper()
	first, _, _ := strings.Cut(stderr, "\n")
	for _, p := range pkgPrefixes {
		if strings.Contains(" "+first, " "+p) {
			t.Errorf("%q says the package prefix %q", first, p)
		}
	}
	for _, s := range once {
		if n := strings.Count(first, s); n != 1 {
			t.Errorf("%q names %q %d times, want once", first, s, n)
		}
	}
	for _, s := range want {
		if !strings.Contains(stderr, s) {
			t.Errorf("%q lacks %q", stderr, s)
		}
	}
}

// TestErrorsSayOnceSQLite: a data directory whose mnemo.db is not a
// database, is a directory, or was written by a newer mnemo fails with a
// message that names the file once and no package ("engine: store: …"),
// and with the advice the typed error calls for (errors.Is still sees it).
func TestErrorsSayOnceSQLite(t *testing.T) {
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, "mnemo.db"), []byte(strings.Repeat("not a database ", 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "--dir", garbage, "threads")
	if code != 1 {
		t.Errorf("garbage: exit %d", code)
	}
	checkSaysOnce(t, stderr, []string{filepath.Join(garbage, "mnemo.db")}, []string{"file is not a database", "What to do"})

	isDir := t.TempDir()
	if err := os.Mkdir(filepath.Join(isDir, "mnemo.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, stderr = run(t, nil, "--dir", isDir, "threads")
	checkSaysOnce(t, stderr, []string{filepath.Join(isDir, "mnemo.db")}, []string{"is a directory"})

	newer := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t","resource":"r","role":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, nil, "--dir", newer, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(newer, "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, _, stderr = run(t, nil, "--dir", newer, "threads")
	checkSaysOnce(t, stderr, []string{filepath.Join(newer, "mnemo.db")}, []string{"newer than this build"})

	if os.Geteuid() != 0 { // root reads any directory
		closed := t.TempDir()
		if err := os.Chmod(closed, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(closed, 0o700)
		_, _, stderr = run(t, nil, "--dir", closed, "threads")
		checkSaysOnce(t, stderr, nil, []string{"permission denied"})
	}
}

// TestErrorsSayOncePostgres: a --db naming a database that does not exist,
// a search_path whose first schema does not exist, or a schema without
// mnemo's tables fails with a message that says where once (not
// "pgstore: open HOST/DB: pgstore: …", nor pgx's restatement of the user,
// database and host) and keeps the hint of the typed error.
func TestErrorsSayOncePostgres(t *testing.T) {
	server := pgtest.ServerDSN(t)
	u, err := url.Parse(server)
	if err != nil {
		t.Skipf("MNEMO_TEST_POSTGRES is not a URL: %v", err)
	}
	noDB := *u
	noDB.Path = "/mnemo_no_such_db"
	_, _, stderr := run(t, nil, "--db", noDB.String(), "threads")
	checkSaysOnce(t, stderr, []string{"/mnemo_no_such_db", u.Host}, []string{`database "mnemo_no_such_db" does not exist`})
	if strings.Contains(stderr, "failed to connect") {
		t.Errorf("%q restates where it failed to connect", stderr)
	}

	_, _, stderr = run(t, nil, "--db", pgtest.WithSearchPath(t, server, "mnemo_no_such_schema"), "threads")
	checkSaysOnce(t, stderr, []string{u.Host}, []string{"mnemo_no_such_schema", "does not exist"})

	empty := pgtest.DSN(t) // a new schema, without mnemo's tables
	_, _, stderr = run(t, nil, "--db", empty, "threads")
	checkSaysOnce(t, stderr, []string{u.Host}, []string{"no mnemo tables", "Check --db"})

	// A database that does not store text as UTF-8: refused by a command
	// that would create mnemo's tables, naming its encoding and the fix.
	ascii := *u
	ascii.Path = "/mnemo_ascii_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	pgtest.Exec(t, server, "CREATE DATABASE "+ascii.Path[1:]+" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	t.Cleanup(func() { pgtest.Exec(t, server, "DROP DATABASE "+ascii.Path[1:]+" WITH (FORCE)") })
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t","resource":"r","role":"user","content":"Café"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "--db", ascii.String(), "ingest", in)
	if code != 1 {
		t.Errorf("ingest into a SQL_ASCII database: exit %d", code)
	}
	checkSaysOnce(t, stderr, []string{ascii.Path, u.Host}, []string{"SQL_ASCII", "ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0"})
}

// TestConfigDirectorySaysOnce: a stored mnemo.json or a --config file that
// is a directory is named once: "read D/mnemo.json: is a directory" (it was
// "read D/mnemo.json: read D/mnemo.json: is a directory").
func TestConfigDirectorySaysOnce(t *testing.T) {
	dir := t.TempDir()
	stored := filepath.Join(dir, "mnemo.json")
	if err := os.Mkdir(stored, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "--dir", dir, "threads")
	if code != 1 {
		t.Errorf("stored: exit %d", code)
	}
	checkSaysOnce(t, stderr, []string{stored}, []string{"is a directory", "What to do"})

	flag := t.TempDir()
	code, _, stderr = run(t, nil, "--dir", t.TempDir(), "serve", "--listen", "127.0.0.1:0", "--config", flag)
	if code == 0 {
		t.Errorf("--config DIR: exit 0")
	}
	checkSaysOnce(t, stderr, []string{flag}, []string{"is a directory"})
}
