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
// `mnemo reindex`, which emptied the indexes too.
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
	// A new directory still opens: there is nothing beside its database.
	if e, err := engine.Open(context.Background(), engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}}); err != nil {
		t.Fatalf("open of a new directory: %v", err)
	} else {
		e.Close()
	}
}
