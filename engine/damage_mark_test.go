package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// damageMark is the record of damage beside mnemo.db.
const damageMark = engine.DatabaseFile + ".damage-seen"

// soundAndGarbled stores garbledPageDir's threads "t" and "u" in a new
// directory and returns it with the sound mnemo.db's bytes (the WAL
// checkpointed: a backup of it), then garbles the page holding marker.
func soundAndGarbled(t *testing.T, marker string) (dir string, sound []byte) {
	t.Helper()
	dir = t.TempDir()
	path := storeMarkerThreads(t, dir, marker)
	sound, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.GarblePage(t, path, enginetest.PageHolding(t, path, marker))
	return dir, sound
}

// TestDamageKnownToNextOpen: the damage one engine met is known to the
// next Open of the directory (a cron ingest, a second server): its record
// (mnemo.db.damage-seen) is written when SQLite first reports the damage,
// and from Open on every call that would store new data is refused with
// ErrDatabaseCorrupt, saying how to clear it, while reads, an erasure and
// a backup go on and a working-memory configuration is not stored. A file
// restored from a backup is still refused until a full check finds it
// sound, which removes the record; the engine then stores again. Before,
// the refusal was the process's alone: the next Open appended into the
// damaged file until a read of its own met the page.
//
// SQLite only: it damages the database file.
func TestDamageKnownToNextOpen(t *testing.T) {
	ctx := context.Background()
	dir, sound := soundAndGarbled(t, "zanzibar-lighthouse-keeper")
	mark := filepath.Join(dir, damageMark)
	wm := &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread}
	open := func(wm *working.Config) *engine.Engine {
		t.Helper()
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, WorkingMemory: wm})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return e
	}
	appendU := func(e *engine.Engine) error {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r-u", Messages: []engine.Message{user("", "one more about the harbour")}})
		return err
	}

	e := open(nil)
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a record of damage before any read met it: %v", err)
	}
	if _, err := e.Messages(ctx, "t", 0, 0); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("read of the damaged page: %v, want ErrDatabaseCorrupt", err)
	}
	b, err := os.ReadFile(mark)
	if err != nil || !strings.Contains(string(b), `"seen"`) || !strings.Contains(string(b), "malformed") {
		t.Fatalf("record of the damage: %q, %v; want when and SQLite's error", b, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// The next process: refused from its Open, reads and erasure go on.
	e = open(wm)
	err = appendU(e)
	if !errors.Is(err, engine.ErrDatabaseCorrupt) || !strings.Contains(err.Error(), "recorded in "+mark) || !strings.Contains(err.Error(), "a full check that finds the file sound") {
		t.Errorf("append in the next process: %v; want ErrDatabaseCorrupt naming the record and the full check that removes it", err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "u", RunID: "run-next"}); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Errorf("context in the next process: %v, want ErrDatabaseCorrupt", err)
	}
	if err := e.Ping(ctx); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Errorf("ping in the next process: %v, want ErrDatabaseCorrupt", err)
	}
	if ms, err := e.Messages(ctx, "u", 0, 0); err != nil || len(ms) != 60 {
		t.Errorf("read of the sound thread: %d messages, %v; want 60", len(ms), err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open(nil)
	if _, err := e.WorkingMemory(); !errors.Is(err, engine.ErrNoWorkingMemory) {
		t.Errorf("working memory after an open with a configuration into the damaged file: %v, want ErrNoWorkingMemory (the configuration not stored)", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// Restored from a backup: still refused until a full check passes.
	path := filepath.Join(dir, engine.DatabaseFile)
	for _, f := range []string{path + "-wal", path + "-shm"} {
		os.Remove(f)
	}
	if err := os.WriteFile(path, sound, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(t.TempDir(), "b"), engine.BackupOptions{}); err != nil {
		t.Errorf("backup of the directory with a record of damage: %v", err)
	}
	e = open(nil)
	defer e.Close()
	if err := appendU(e); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Errorf("append after the restore, before a check: %v, want ErrDatabaseCorrupt", err)
	}
	if _, err := e.DeleteThread(ctx, "t"); err != nil {
		t.Errorf("erasure with a record of damage: %v", err)
	}
	if err := e.CheckWith(ctx, engine.CheckOptions{}); err != nil {
		t.Errorf("quick check of the restored file: %v", err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the record after a quick check: %v; want it kept (only a full check clears it)", err)
	}
	if err := e.CheckWith(ctx, engine.CheckOptions{Full: true}); err != nil {
		t.Fatalf("full check of the restored file: %v", err)
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record after a full check passed: %v; want it removed", err)
	}
	if err := appendU(e); err != nil {
		t.Errorf("append after the full check passed: %v", err)
	}
}

// TestDamageRecordedByCheck: a full check that finds mnemo.db damaged
// records it as a read that meets a damaged page does (SQLite's integrity
// check answers its findings as rows, not as an error), so the next Open
// refuses new data; and the record keeps none of the findings' text.
//
// SQLite only: it damages the database file.
func TestDamageRecordedByCheck(t *testing.T) {
	ctx := context.Background()
	dir, _ := soundAndGarbled(t, "zanzibar-lighthouse-keeper")
	err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{Full: true})
	if !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("check of the damaged file: %v, want ErrDatabaseCorrupt", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, damageMark))
	if rerr != nil || !strings.Contains(string(b), "mnemo check found") || strings.Contains(string(b), "thread") {
		t.Fatalf("record of the damage check found: %q, %v", b, rerr)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r-u", Messages: []engine.Message{user("", "more")}}); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Errorf("append after check found the damage: %v, want ErrDatabaseCorrupt", err)
	}
}
