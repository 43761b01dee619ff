package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestForeignDatabaseRefused: a mnemo.db that holds no database mnemo
// wrote, though it is not empty, is refused by every command, reading or
// writing (exit 1, the refusal and its advice), and not one byte of it
// changes. Before (walk48 F7, fix48), a file of 1 byte was taken for a new
// database (threads wrote a 188 KB schema over it; check then advised a
// reindex that would drop the indexes), and another program's SQLite
// database got mnemo's schema from a reading command (threads, export).
// A mnemo database whose tables were dropped said "no such table:
// journal".
func TestForeignDatabaseRefused(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	commands := [][]string{{"threads"}, {"messages", "--thread", "t0"}, {"export"}, {"check"}, {"ingest", writeJSONL(t, 2, nil)}}
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"OneByte", func(t *testing.T, path string) { cutTo(t, path, 1) }, "has 1 byte, fewer than the 100 of a SQLite database's header"},
		{"NinetyNineBytes", func(t *testing.T, path string) { cutTo(t, path, 99) }, "has 99 bytes, fewer than the 100"},
		{"NotSQLite", func(t *testing.T, path string) { writeFile(t, path, strings.Repeat("not a database\n", 300)) }, "file is not a database"},
		{"OtherProgram", func(t *testing.T, path string) {
			removeAll(t, filepath.Dir(path))
			execSQL(t, path, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('mine')")
		}, "is a SQLite database at schema version 0, not one mnemo wrote"},
		// Its tables still only in its write-ahead log (another program
		// killed before a checkpoint): fix52 found it migrated.
		{"OtherProgramWAL", func(t *testing.T, path string) {
			removeAll(t, filepath.Dir(path))
			unflushedWAL(t, path, "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('mine')")
		}, "is a SQLite database at schema version 0, not one mnemo wrote"},
		{"TablesDropped", func(t *testing.T, path string) {
			execSQL(t, path, "PRAGMA foreign_keys = OFF", dropAllTables(t, path))
		}, "without its threads table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range commands {
				dir := t.TempDir()
				if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
					t.Fatalf("ingest: exit %d: %s", code, errOut)
				}
				path := filepath.Join(dir, engine.DatabaseFile)
				tc.make(t, path)
				before, beforeWAL := readFile(t, path), readIfAny(path+"-wal")
				code, out, errOut := run(t, env, append([]string{"--dir", dir}, args...)...)
				if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "What to do:") {
					t.Errorf("mnemo %q: exit %d, %q %q; want exit 1 saying %q and what to do", args, code, out, errOut, tc.want)
				}
				if after := readFile(t, path); !bytes.Equal(after, before) {
					t.Errorf("mnemo %q: mnemo.db was written: %d bytes, was %d", args, len(after), len(before))
				}
				if after := readIfAny(path + "-wal"); !bytes.Equal(after, beforeWAL) {
					t.Errorf("mnemo %q: mnemo.db-wal was written: %d bytes, was %d", args, len(after), len(beforeWAL))
				}
			}
		})
	}
}

// TestForeignDatabaseBackup: mnemo backup of a mnemo.db of 0 bytes or 1
// byte, or of another program's SQLite database, is refused as every
// other command refuses it (exit 1, what to do) and writes no backup.
// Before, each said "count messages: SQL logic error: no such table:
// messages (1)" (0 bytes until the header check and the empty-file check
// had one owner, db_header.go).
func TestForeignDatabaseBackup(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"ZeroBytes", func(t *testing.T, path string) { writeFile(t, path, "") }, "has 0 bytes: it holds no memory"},
		{"OneByte", func(t *testing.T, path string) { writeFile(t, path, "S") }, "has 1 byte, fewer than the 100"},
		{"OtherProgram", func(t *testing.T, path string) {
			execSQL(t, path, "CREATE TABLE notes (body TEXT)")
		}, "is a SQLite database at schema version 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.make(t, filepath.Join(dir, engine.DatabaseFile))
			dest := filepath.Join(t.TempDir(), "bk")
			code, out, errOut := run(t, env, "--dir", dir, "backup", dest)
			if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "What to do:") {
				t.Errorf("backup: exit %d, %q %q; want exit 1 saying %q and what to do", code, out, errOut, tc.want)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Errorf("backup: %s was written: %v", dest, err)
			}
		})
	}
}

// unflushedWAL makes path a WAL-mode SQLite database whose stmts are in
// its write-ahead log only, as another program killed before a checkpoint
// leaves it: the files are copied while the connection that wrote them is
// open (closing it would checkpoint the log into the file).
func unflushedWAL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range append([]string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0"}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	writeFile(t, path, string(readFile(t, src)))
	writeFile(t, path+"-wal", string(readFile(t, src+"-wal")))
	if len(readFile(t, path+"-wal")) == 0 {
		t.Fatal("the write-ahead log is empty")
	}
}

// readIfAny is the file at path's contents, nil when it cannot be read.
func readIfAny(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

func cutTo(t *testing.T, path string, n int) {
	t.Helper()
	b := readFile(t, path)
	writeFile(t, path, string(b[:n]))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// removeAll empties dir (the mnemo data directory ingest made).
func removeAll(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// dropAllTables is one statement dropping every table of the database at
// path.
func dropAllTables(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var drops []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		drops = append(drops, "DROP TABLE "+name+";")
	}
	return strings.Join(drops, " ")
}

// TestSchemalessDatabaseIsNew: a mnemo.db that SQLite gave a header but no
// table, at schema version 0 (a first ingest cut short by a full disk
// leaves one of 4096 bytes: `ulimit -f 8; mnemo ingest` did), is not
// another program's database: a writing command writes the schema into
// it, as into a file of 0 bytes, and a reading one says the file holds no
// memory, writing nothing. Before (rev51, after 4b26396b), every command
// refused it as a foreign database and advised a restore from a backup,
// so the directory stayed unusable once the disk had room again.
func TestSchemalessDatabaseIsNew(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	schemaless := func(t *testing.T) (dir, path string) {
		dir = t.TempDir()
		path = filepath.Join(dir, engine.DatabaseFile)
		execSQL(t, path, "PRAGMA journal_mode = WAL") // SQLite writes page 1: the header and an empty schema
		if b := readFile(t, path); len(b) < 512 {
			t.Fatalf("mnemo.db has %d bytes, want a SQLite header and page", len(b))
		}
		return dir, path
	}
	t.Run("Reading", func(t *testing.T) {
		dir, path := schemaless(t)
		before := readFile(t, path)
		code, out, errOut := run(t, env, "--dir", dir, "threads")
		if want := "is a SQLite database with no table: it holds no memory"; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("mnemo threads: exit %d, %q %q; want exit 1 saying %q", code, out, errOut, want)
		}
		if after := readFile(t, path); !bytes.Equal(after, before) {
			t.Errorf("mnemo threads: mnemo.db was written: %d bytes, was %d", len(after), len(before))
		}
	})
	t.Run("Writing", func(t *testing.T) {
		dir, _ := schemaless(t)
		if code, out, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
			t.Fatalf("mnemo ingest: exit %d, %q %q; want the schema written and the messages stored", code, out, errOut)
		}
		if code, out, errOut := run(t, env, "--dir", dir, "threads"); code != 0 || out == "" {
			t.Errorf("mnemo threads after ingest: exit %d, %q %q", code, out, errOut)
		}
	})
}
