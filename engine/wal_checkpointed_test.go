package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// quickCheck runs PRAGMA quick_check and counts the messages of the
// database file at path, read alone (no -wal beside it, or an empty one).
func quickCheck(t *testing.T, path string) (string, int) {
	t.Helper()
	if fi, err := os.Lstat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("%s-wal holds %d bytes: the file is not read alone", path, fi.Size())
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	var n int
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&ok); err != nil {
		return err.Error(), 0
	}
	if err := db.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
		return err.Error(), 0
	}
	return ok, n
}

// TestWALCheckpointedDamage (review22): every frame of a served
// directory's log had been checkpointed into mnemo.db (which alone held
// every message), then the log was damaged after its first commit. The
// open let SQLite apply the log's valid prefix, writing older page
// versions over the newer ones mnemo.db held: mnemo.db shrank and was
// malformed. Now the -shm's nBackfill says mnemo.db holds every frame:
// the log is kept and set aside unapplied, mnemo.db passes quick_check
// with every message, nothing is said lost, and check has no finding.
func TestWALCheckpointedDamage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range enginetest.WALDamages {
		t.Run(tc.Name, func(t *testing.T) {
			dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
			enginetest.DamageCheckpointedWAL(t, dir, frames, tc.Damage)
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			d := e.WALDamage()
			ms, err := e.Messages(ctx, "t", 1, 0)
			if err != nil || len(ms) != walCrashImageN {
				t.Errorf("messages=%d (err %v), want %d", len(ms), err, walCrashImageN)
			}
			e.Close()
			if ok, n := quickCheck(t, filepath.Join(dir, engine.DatabaseFile)); ok != "ok" || n != walCrashImageN {
				t.Fatalf("mnemo.db after the open: quick_check %q, %d messages, want ok and %d", ok, n, walCrashImageN)
			}
			if d == nil || !d.SetAside || d.AppliedThroughFrame != frames || d.FramesNotApplied != 0 || d.CommitsNotApplied != 0 || d.Kept == "" {
				t.Fatalf("WALDamage = %+v, want the log set aside, mnemo.db holding all %d frames, nothing lost", d, frames)
			}
		})
		// mnemo check reads mnemo.db read-only before the engine opens
		// it: SQLite's recovery of that read rewrote the -shm, so the
		// next open no longer saw the checkpoint, and applied the prefix.
		t.Run(tc.Name+"CheckFirst", func(t *testing.T) {
			dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
			enginetest.DamageCheckpointedWAL(t, dir, frames, tc.Damage)
			if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}); err != nil {
				t.Fatalf("CheckFile: %v, want nil (mnemo.db alone is whole; nothing lost)", err)
			}
			if ok, n := quickCheck(t, filepath.Join(dir, engine.DatabaseFile)); ok != "ok" || n != walCrashImageN {
				t.Fatalf("mnemo.db after CheckFile: quick_check %q, %d messages, want ok and %d", ok, n, walCrashImageN)
			}
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if ms, err := e.Messages(ctx, "t", 1, 0); err != nil || len(ms) != walCrashImageN {
				t.Fatalf("messages=%d (err %v), want %d", len(ms), err, walCrashImageN)
			}
			if kept := engine.KeptDamaged(dir); len(kept) != 2 {
				t.Fatalf("KeptDamaged=%v, want the set-aside log and its -shm", kept)
			}
			if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}); err != nil {
				var ce *engine.CheckError
				if errors.As(err, &ce) && len(ce.WAL) > 0 {
					t.Fatalf("CheckFile: WAL findings %q, want none (nothing lost)", ce.WAL)
				}
			}
		})
	}
}

// TestWALDamageShmInvalid: the same damage with the -shm's header
// damaged too (or no -shm): nothing says what mnemo.db holds, so the open
// keeps a copy of mnemo.db as it was before SQLite applied the log's
// prefix (mnemo.db.before-wal-*, listed by KeptDamaged): that copy passes
// quick_check with every message.
func TestWALDamageShmInvalid(t *testing.T) {
	ctx := context.Background()
	damages := []struct {
		name   string
		damage func(t *testing.T, dir string, frames int)
	}{
		{"", func(t *testing.T, dir string, frames int) {
			enginetest.DamageCheckpointedWAL(t, dir, frames, enginetest.WALDamages[0].Damage)
		}},
		// No valid commit after the damage: SQLite's recovery drops
		// nothing the log still vouches for, but the checkpoint had
		// copied that last transaction into mnemo.db, and the prefix
		// rolled it back; no copy was kept (store.newerInFile).
		{"LastCommit", damageLastCommit},
	}
	for _, dm := range damages {
		for _, tc := range []struct {
			name string
			shm  func(name string) error
		}{
			{"Damaged", func(name string) error {
				b, err := os.ReadFile(name)
				if err != nil {
					return err
				}
				b[17] ^= 0x01 // mxFrame, first copy of the header
				return os.WriteFile(name, b, 0o600)
			}},
			{"Absent", os.Remove},
		} {
			t.Run(dm.name+tc.name, func(t *testing.T) {
				dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
				dm.damage(t, dir, frames)
				if err := tc.shm(filepath.Join(dir, engine.DatabaseFile+"-shm")); err != nil {
					t.Fatal(err)
				}
				was, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile))
				if err != nil {
					t.Fatal(err)
				}
				e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
				if err == nil {
					if d := e.WALDamage(); d == nil || d.SetAside || d.Before == "" {
						t.Errorf("WALDamage = %+v, want the copy of mnemo.db named", d)
					}
					e.Close()
				}
				var before string
				for _, k := range engine.KeptDamaged(dir) {
					if strings.HasPrefix(k, engine.DatabaseFile+".before-wal-") {
						before = filepath.Join(dir, k)
					}
				}
				if before == "" {
					t.Fatalf("KeptDamaged=%v, want a %s.before-wal-* copy", engine.KeptDamaged(dir), engine.DatabaseFile)
				}
				if fi, err := os.Stat(before); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("%s: %v, mode %v, want 0600", before, err, fi.Mode())
				}
				if ok, n := quickCheck(t, before); ok != "ok" || n != walCrashImageN {
					t.Fatalf("the kept copy: quick_check %q, %d messages, want ok and %d", ok, n, walCrashImageN)
				}
				if kept, err := os.ReadFile(before); err != nil || !bytes.Equal(kept, was) {
					t.Fatalf("the kept copy (%v) is not %s as it was before the open", err, engine.DatabaseFile)
				}
			})
		}
	}
}

// TestWALTornTailNoBefore: a log whose last transaction is damaged (no
// valid commit after it) and that no checkpoint had copied past its
// valid prefix (a torn tail, as a crash mid-write leaves one), with no
// -shm: SQLite's recovery loses nothing mnemo.db held, so no copy of it
// is kept (store.newerInFile finds no newer page) and nothing is said.
func TestWALTornTailNoBefore(t *testing.T) {
	ctx := context.Background()
	dir := walCrashImage(t)
	log := filepath.Join(dir, engine.DatabaseFile+"-wal")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	damageLastCommit(t, dir, store.ScanWAL(b).LastCommit)
	if err := os.Remove(filepath.Join(dir, engine.DatabaseFile+"-shm")); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	d := e.WALDamage()
	e.Close()
	if d != nil || len(engine.KeptDamaged(dir)) != 0 {
		t.Fatalf("WALDamage %+v, kept %v; want nothing kept", d, engine.KeptDamaged(dir))
	}
	if ok, _ := quickCheck(t, filepath.Join(dir, engine.DatabaseFile)); ok != "ok" {
		t.Fatalf("mnemo.db after the open: quick_check %q", ok)
	}
}
