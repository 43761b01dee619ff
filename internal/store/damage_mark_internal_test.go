package store

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoteDamageBeatsStaleRecheck: a recheck of the record of damage
// (readMark, every DamageMarkRecheck) that read "none" just before this
// process's check recorded damage (NoteDamage) does not store its stale
// answer over the news: DamageMarked names the damage once NoteDamage has
// returned. Before (rev65), the recheck stored nil after the check's own
// read stored the record, and the engine stored new data into the file its
// check had found damaged until the next recheck.
func TestNoteDamageBeatsStaleRecheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDB(db)
	v, _ := damages.Load(db)
	d := v.(*damage)

	var first atomic.Bool
	var wg sync.WaitGroup
	readMarkHook = func() { // the recheck has read "none"; the check runs now
		if !first.CompareAndSwap(false, true) {
			return // NoteDamage's own read
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := NoteDamage(db, path, time.Now(), "mnemo check found 1 problem in the database file"); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(200 * time.Millisecond) // NoteDamage's own read is done, or waits its turn
	}
	defer func() { readMarkHook = nil }()
	d.readMark()
	wg.Wait()
	if m := DamageMarked(db); m == nil {
		t.Fatal("DamageMarked = nil after NoteDamage returned: a recheck that read before the record was written stored its answer last")
	}
}

// TestNoteDamageUnrecorded: damage a check found that cannot be written
// beside the file (here its directory is gone) is still answered by
// DamageMarked, with no Path, through every recheck, until ClearDamageMark.
// Before (rev65), the check's reread found no record and the process went
// on storing new data into the file its check had found damaged.
func TestNoteDamageUnrecorded(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseDB(db)
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil { // the record cannot be written now
		t.Fatal(err)
	}
	if err := NoteDamage(db, filepath.Join(dir, "m.db"), time.Now(), "mnemo check found 2 problems in the database file"); err == nil {
		t.Fatal("NoteDamage: no error, though the record's directory is gone")
	}
	v, _ := damages.Load(db)
	v.(*damage).markRead.Store(int64(time.Since(markEpoch) - DamageMarkRecheck)) // due for a recheck
	m := DamageMarked(db)
	if m == nil || m.Path != "" {
		t.Fatalf("DamageMarked = %+v after a check found damage it could not record, want the damage with no Path", m)
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := ClearDamageMark(db); err != nil {
		t.Fatal(err)
	}
	if m := DamageMarked(db); m != nil {
		t.Fatalf("DamageMarked = %+v after ClearDamageMark, want nil", m)
	}
}
