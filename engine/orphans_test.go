package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestOrphansKept: a data directory whose mnemo.db is gone but whose
// write-ahead log (a crash image copied without its database file) or
// indexes remain gets a new, empty database, and the old files are kept
// aside, not deleted: mnemo.db.damaged-<time>-wal, -shm and -index
// (Engine.KeptOrphans, KeptDamaged), the log byte for byte, the indexes
// whole. The new database uses no index of the old one: its check finds
// no entry that is not a stored message, and index/ holds none of the old
// text. Before, the open deleted index/ and SQLite the log (the only copy
// of the text when the database file was lost) without a word.
//
// SQLite only: it removes the database file.
func TestOrphansKept(t *testing.T) {
	t.Run("Indexes", func(t *testing.T) {
		dir := closedDir(t, "T-old")
		removeDatabaseFiles(t, dir)
		kept := openOnOrphans(t, dir, keptIndex)
		// The whole index directory, the old database's lexical index in it.
		if _, err := os.Stat(filepath.Join(kept[0], filepath.Base(engine.LexicalDir), "index_meta.json")); err != nil {
			t.Errorf("the kept index directory: %v", err)
		}
	})
	t.Run("WriteAheadLog", func(t *testing.T) {
		dir := crashImageWithoutDatabase(t)
		wal, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile+"-wal"))
		if err != nil {
			t.Fatal(err)
		}
		kept := openOnOrphans(t, dir, "-wal", "-shm")
		if b, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(b, wal) {
			t.Errorf("the kept log: %d bytes (%v), want the %d found", len(b), err, len(wal))
		}
		if !bytes.Contains(wal, []byte("walrus")) {
			t.Errorf("the log copied holds none of the text appended")
		}
	})
}

const keptIndex = "-index"

// openOnOrphans opens dir (no mnemo.db in it), checks that Open kept the
// old files under one base name with suffixes, listed by KeptDamaged,
// that the new database holds none of the old and serves an append, and
// returns the kept paths.
func openOnOrphans(t *testing.T, dir string, suffixes ...string) []string {
	t.Helper()
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir})
	kept := e.KeptOrphans()
	if len(kept) != len(suffixes) {
		t.Fatalf("KeptOrphans = %v, want %d files (%v)", kept, len(suffixes), suffixes)
	}
	base := strings.TrimSuffix(kept[0], suffixes[0])
	var names []string
	for i, s := range suffixes {
		if kept[i] != base+s || !strings.HasPrefix(filepath.Base(base), engine.DatabaseFile+".damaged-") {
			t.Errorf("kept[%d] = %s, want %s.damaged-<time>%s", i, kept[i], engine.DatabaseFile, s)
		}
		if _, err := os.Lstat(kept[i]); err != nil {
			t.Errorf("the kept file: %v", err)
		}
		names = append(names, filepath.Base(kept[i]))
	}
	if got := engine.KeptDamaged(dir); !slices.Equal(got, names) {
		t.Errorf("KeptDamaged = %v, want %v", got, names)
	}
	if res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "walrus ZEPHYR"}); err != nil || len(res.Hits) != 0 {
		t.Errorf("the new database's search: %+v, %v, want nothing of the old", res, err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "T-new", ResourceID: "r",
		Messages: []engine.Message{{Role: "user", Content: "a new beginning"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if dirHolds(t, filepath.Join(dir, "index"), "ZEPHYR") {
		t.Errorf("index/ holds the old database's text")
	}
	return kept
}

// dirHolds reports whether a file under root holds text.
func dirHolds(t *testing.T, root, text string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		found = found || bytes.Contains(b, []byte(text))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// crashImageWithoutDatabase returns a directory holding the -wal and -shm
// of an engine open on another, with an append in its log, and no
// mnemo.db: a copy of a directory a kill -9 left, its database file lost.
func crashImageWithoutDatabase(t *testing.T) string {
	t.Helper()
	live := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Dir: live})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("a", "a secret about the walrus")}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{engine.DatabaseFile + "-wal", engine.DatabaseFile + "-shm"} {
		b, err := os.ReadFile(filepath.Join(live, f))
		if err != nil {
			t.Fatalf("the crash image lacks %s: %v", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
