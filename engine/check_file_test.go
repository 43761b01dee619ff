package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckFile: CheckFile finds a garbled leaf page of a crash image
// (mnemo.db with its -wal) without changing either file, finds nothing
// in a sound one, and refuses a directory an open engine holds.
func TestCheckFile(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, true)
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{Full: true}); err != nil {
		t.Fatalf("sound: %v", err)
	}
	garbleLeaf(t, path, 7)
	db, _ := os.ReadFile(path)
	wal, _ := os.ReadFile(path + "-wal")
	for _, full := range []bool{false, true} {
		err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{Full: full})
		var ce *engine.CheckError
		if !errors.Is(err, engine.ErrDatabaseCorrupt) || !errors.As(err, &ce) || len(ce.Database) == 0 {
			t.Fatalf("full=%v: %v", full, err)
		}
		gotDB, _ := os.ReadFile(path)
		gotWAL, _ := os.ReadFile(path + "-wal")
		if !bytes.Equal(gotDB, db) || !bytes.Equal(gotWAL, wal) {
			t.Fatalf("full=%v: the files changed (mnemo.db same %v, -wal same %v)", full, bytes.Equal(gotDB, db), bytes.Equal(gotWAL, wal))
		}
	}
	sound := salvageFixture(t, false)
	e, err := engine.Open(ctx, engine.Config{Dir: sound})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := engine.CheckFile(ctx, engine.Config{Dir: sound, LockWait: -1}, engine.CheckOptions{}); !errors.Is(err, engine.ErrLocked) {
		t.Fatalf("held by an engine: %v", err)
	}
}
