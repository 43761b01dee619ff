package engine_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestErasureOnDamagedFileZeroesNothing: an erasure on a file with a
// record of damage does not zero free space in place (a damaged page's
// header, by which free space is told, may be wrong: a cell count garbled
// lower calls live cell pointers free); it falls back to VACUUM, which
// reads the rows through SQLite, as before vac64 (rev65 finding 2).
func TestErasureOnDamagedFileZeroesNothing(t *testing.T) {
	ctx := context.Background()
	const secret = "my leftover secret is zq-4411-vv-0093, keep it"
	dir := t.TempDir()
	e := enginetest.SQLite.MustOpen(t, engine.Config{Dir: dir})
	appendUser(t, e, "gone", "r", secret)
	appendUser(t, e, "kept", "r", "a turn of another thread, kept")
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	enginetest.PlantLeftover(t, path, secret)
	if err := store.RecordDamage(path, time.Now(), "mnemo check found 1 problem in the database file"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(store.DamageMarkRecheck + 100*time.Millisecond) // the engine reads the record again
	before := engine.ClearedPages(e)
	res, err := e.DeleteThread(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.ClearedPages(e) - before; got != 0 || res.Vacuumed != engine.VacuumResidue {
		t.Fatalf("on a damaged file: cleared %d pages in place, Vacuumed %q; want none and %q", got, res.Vacuumed, engine.VacuumResidue)
	}
	if held, err := engine.FileHolds(path, [][]byte{[]byte(secret)}); err != nil || held {
		t.Fatalf("the file still holds the erased text (%v)", err)
	}
}
