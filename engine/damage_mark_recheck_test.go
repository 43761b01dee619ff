package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDamageMarkRechecked: a long-lived engine reads the record of damage
// (mnemo.db.damage-seen) again while it runs, at most every
// store.DamageMarkRecheck: a record removed by another process (an
// operator's deletion; a full check elsewhere) lets it store again, and a
// record written by another process (store.RecordDamage, as mnemo check
// finding the file damaged writes it) makes it refuse, Ping too. Before,
// the record was read at Open only: the engine refused until restarted,
// or stored into a file another process had found damaged.
//
// SQLite only: the record is beside mnemo.db.
func TestDamageMarkRechecked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, engine.DatabaseFile)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	appendOne := func() error {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: []engine.Message{user("", "one more about the harbour")}})
		return err
	}
	if err := appendOne(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordDamage(path, time.Now(), "database disk image is malformed (11)"); err != nil {
		t.Fatal(err)
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := appendOne(); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("append with the record: %v, want ErrDatabaseCorrupt", err)
	}
	// until polls f until it returns nil, for a few rechecks at most.
	until := func(what string, f func() error) {
		t.Helper()
		deadline := time.Now().Add(5 * store.DamageMarkRecheck)
		for err := f(); err != nil; err = f() {
			if time.Now().After(deadline) {
				t.Fatalf("%s after %v: %v", what, 5*store.DamageMarkRecheck, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := store.RemoveDamageMark(path); err != nil { // another process
		t.Fatal(err)
	}
	until("append once another process removed the record", appendOne)
	if err := e.Ping(ctx); err != nil {
		t.Errorf("ping once the record is removed: %v", err)
	}
	if err := store.RecordDamage(path, time.Now(), "mnemo check found 1 problem in the database file"); err != nil { // another process
		t.Fatal(err)
	}
	until("ping once another process recorded damage", func() error {
		if err := e.Ping(ctx); !errors.Is(err, engine.ErrDatabaseCorrupt) {
			return errors.New("not refused")
		}
		return nil
	})
	if err := appendOne(); !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Errorf("append once another process recorded damage: %v, want ErrDatabaseCorrupt", err)
	}
	if _, err := os.Stat(path + store.DamageMarkSuffix); err != nil {
		t.Errorf("the record: %v", err)
	}
}
