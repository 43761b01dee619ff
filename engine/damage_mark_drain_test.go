package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestDamageMarkDrainerHeld: the background outbox drainer embeds and
// indexes nothing into a mnemo.db known damaged. Two messages appended
// while the drainer's batch waited for its embedder, before the record of
// damage appeared beside the file, stay queued once that batch finishes
// (before, the drainer embedded them into the marked file: stored
// vectors and outbox deletions); once the record is removed, the drainer
// takes them again.
//
// SQLite only: the record is beside mnemo.db.
func TestDamageMarkDrainerHeld(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	emb := &heldEmbedder{entered: make(chan struct{}, 1)} // catchup_test.go: its vectors are stored
	release := emb.setHold("the ferry left at noon m1")
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendOne := func(id string) {
		t.Helper()
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user(id, "the ferry left at noon "+id)}}); err != nil {
			t.Fatal(err)
		}
	}
	appendOne("m1")
	<-emb.entered // the drainer's batch (m1) waits for the embedder
	appendOne("m2")
	appendOne("m3")
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := store.RecordDamage(path, time.Now(), "database disk image is malformed (11)"); err != nil { // another process
		t.Fatal(err)
	}
	pending := func() int64 {
		t.Helper()
		st, err := e.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.OutboxPending
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * store.DamageMarkRecheck)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after %v (outbox %d rows)", what, 5*store.DamageMarkRecheck, pending())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("Ping refuses once the record is read again", func() bool { return errors.Is(e.Ping(ctx), engine.ErrDatabaseCorrupt) })
	release() // m1's batch finishes; m2 and m3 were queued before the damage was found
	waitFor("m1's batch done", func() bool { return pending() <= 2 })
	time.Sleep(store.DamageMarkRecheck / 2) // the unheld drainer took them within a debounce (20 ms)
	if got, want := pending(), int64(2); got != want {
		t.Fatalf("outbox rows while the record is there: %d, want %d (m2, m3 stay queued: nothing is embedded into a marked file)", got, want)
	}
	if _, err := store.RemoveDamageMark(path); err != nil { // a full check elsewhere
		t.Fatal(err)
	}
	waitFor("the drainer takes the rows once the record is removed", func() bool { return pending() == 0 })
}
