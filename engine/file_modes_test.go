package engine_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDataDirectoryPrivate: every file an engine writes in its data
// directory (the database and its log, the lexical index with its
// index_meta.json, the shard snapshots) is its owner's only: no bit for
// group or others, under the usual umask 022. index_meta.json was 0644
// (walk56 F9): bleve writes it 0666 less the umask.
func TestDataDirectoryPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the night train to Porto leaves at nine")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "train"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var files int
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if path != dir && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, readable beyond its owner", path, fi.Mode().Perm())
		}
		if fi.Mode().IsRegular() {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Fatalf("walked %d files in %s; want the database and the index's files", files, dir)
	}
}
