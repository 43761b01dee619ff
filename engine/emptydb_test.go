package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestOpenEmptyDatabase: a mnemo.db cut to 0 bytes (a failed copy, a full
// disk, a salvage that wrote nothing) beside the indexes it had fails Open
// with ErrDatabaseCorrupt naming the file, for readers and writers alike,
// and writes nothing into it. Before, SQLite took the empty file for a new
// database: every command answered as an empty memory (search, threads,
// the directory's recorded embedder gone), and `mnemo check` advised
// `mnemo reindex`, which emptied the indexes too. Backup refuses it too.
//
// SQLite only: it truncates the database file.
func TestOpenEmptyDatabase(t *testing.T) {
	dir, _ := dbFixture(t)
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	for _, mustExist := range []bool{true, false} {
		_, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, MustExist: mustExist})
		if !errors.Is(err, engine.ErrDatabaseCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "empty") {
			t.Fatalf("MustExist %v: open of an empty mnemo.db beside its indexes: %v, want ErrDatabaseCorrupt naming %s and saying it is empty", mustExist, err, path)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Fatalf("MustExist %v: the empty mnemo.db was written: %v %v", mustExist, fi, err)
		}
	}
	// Backup refuses it alike (it said "count messages: SQL logic error:
	// no such table: messages") and writes nothing.
	dest := filepath.Join(t.TempDir(), "b")
	if _, err := engine.Backup(context.Background(), engine.Config{Dir: dir}, dest, engine.BackupOptions{}); !errors.Is(err, engine.ErrDatabaseEmpty) || !strings.Contains(err.Error(), path) {
		t.Fatalf("backup of an empty mnemo.db: %v, want ErrDatabaseEmpty naming %s", err, path)
	}
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused backup left %s: %v", dest, err)
	}
	// A new directory still opens: there is nothing beside its database.
	if e, err := engine.Open(context.Background(), engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}}); err != nil {
		t.Fatalf("open of a new directory: %v", err)
	} else {
		e.Close()
	}
}

// TestOpenEmptyDatabaseNoIndex: a mnemo.db of 0 bytes with no lexical
// index beside it (`: > mnemo.db`, or index/lexical gone too) fails a
// reader's Open (MustExist) with ErrDatabaseEmpty, and any Open when
// index/snapshots is left; nothing is written to the file. Before, Open
// wrote a new schema into it: `mnemo check` answered ok over an empty
// memory. A writer's Open of an empty file with nothing beside it (a
// first open cut short) writes the schema, as into a new file.
//
// SQLite only: it truncates the database file.
func TestOpenEmptyDatabaseNoIndex(t *testing.T) {
	empty := func(t *testing.T, subdirs ...string) (dir, path string) {
		dir = t.TempDir()
		path = filepath.Join(dir, engine.DatabaseFile)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, s := range subdirs {
			if err := os.MkdirAll(filepath.Join(dir, s), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		return dir, path
	}
	for _, c := range []struct {
		name      string
		subdirs   []string
		mustExist bool
		refused   bool
	}{
		{"Reader", nil, true, true},
		{"ReaderBesideSnapshots", []string{engine.SnapshotDir}, true, true},
		{"WriterBesideSnapshots", []string{engine.SnapshotDir}, false, true},
		{"Writer", nil, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, path := empty(t, c.subdirs...)
			e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, MustExist: c.mustExist})
			if !c.refused {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				e.Close()
				return
			}
			if err == nil {
				e.Close()
			}
			if !errors.Is(err, engine.ErrDatabaseEmpty) || !errors.Is(err, engine.ErrDatabaseCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("open: %v, want ErrDatabaseEmpty (and ErrDatabaseCorrupt) naming %s", err, path)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
				t.Fatalf("the empty mnemo.db was written: %v %v", fi, err)
			}
			if _, err := os.Stat(filepath.Join(dir, engine.LexicalDir)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the lexical index was created: %v", err)
			}
		})
	}
}
