package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// walGuardDamages are enginetest.WALDamages (damages after the log's first commit,
// with commits after them) and one in the log's last transaction
// (LastCommitPageBit: no valid commit after it, so SQLite's recovery
// loses nothing it would know of, yet the checkpoint had copied that
// transaction into mnemo.db already).
func walGuardDamages() []struct {
	name   string
	damage func(t *testing.T, dir string, frames int)
} {
	var out []struct {
		name   string
		damage func(t *testing.T, dir string, frames int)
	}
	for _, d := range enginetest.WALDamages {
		out = append(out, struct {
			name   string
			damage func(t *testing.T, dir string, frames int)
		}{d.Name, func(t *testing.T, dir string, frames int) { enginetest.DamageCheckpointedWAL(t, dir, frames, d.Damage) }})
	}
	return append(out, struct {
		name   string
		damage func(t *testing.T, dir string, frames int)
	}{"LastCommitPageBit", damageLastCommit})
}

// damageLastCommit flips a bit in the page of dir's log's last frame (the
// commit frame of its last transaction; frames is the log's frame count).
func damageLastCommit(t *testing.T, dir string, frames int) {
	t.Helper()
	log := filepath.Join(dir, engine.DatabaseFile+"-wal")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(binary.BigEndian.Uint32(b[8:]))
	if binary.BigEndian.Uint32(b[enginetest.WALFrameOffset(frames, ps)+4:]) == 0 {
		t.Fatalf("frame %d is not a commit frame", frames)
	}
	b[enginetest.WALFrameOffset(frames, ps)+24+2000] ^= 0x01
	if err := os.WriteFile(log, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCheckpointedDamage: Backup of a directory no process holds,
// whose log a checkpoint had copied wholly into mnemo.db before it was
// damaged (enginetest.CheckpointedWALImage): the backup's read-only read let SQLite
// apply the log's valid prefix over the newer pages mnemo.db held (and
// its recovery rewrote the -shm, so the next Open applied it too). Now
// Backup refuses it (ErrWALDamaged, saying the log would be set aside)
// and leaves the directory as found: the next Open sets the log aside and
// mnemo.db holds every message.
func TestBackupCheckpointedDamage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range walGuardDamages() {
		t.Run(tc.name, func(t *testing.T) {
			dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
			tc.damage(t, dir, frames)
			dest := filepath.Join(t.TempDir(), "b")
			res, err := engine.Backup(ctx, engine.Config{Dir: dir}, dest, engine.BackupOptions{})
			if !errors.Is(err, engine.ErrWALDamaged) || !strings.Contains(err.Error(), "sets it aside unapplied") {
				msgs := int64(-1)
				if res != nil {
					msgs = res.Messages
				}
				t.Fatalf("Backup: %v (%d messages), want ErrWALDamaged saying the log is set aside", err, msgs)
			}
			if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("dest after the refusal: %v, want none", err)
			}
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			d := e.WALDamage()
			e.Close()
			if ok, n := quickCheck(t, filepath.Join(dir, engine.DatabaseFile)); ok != "ok" || n != walCrashImageN || d == nil || !d.SetAside {
				t.Fatalf("the open after the refusal: quick_check %q, %d messages, WALDamage %+v; want ok, %d, set aside", ok, n, d, walCrashImageN)
			}
		})
	}
}

// TestSalvageCheckpointedDamage: Salvage of a directory whose log a
// checkpoint had copied wholly into mnemo.db before it was damaged: the
// salvage's copy (mnemo.db and -wal, no -shm) let SQLite apply the log's
// valid prefix over the newer pages, so the salvaged database held what
// that rollback left. Now the salvage reads the directory's -shm first
// and sets its copy's log aside (SalvageReport.WAL.SetAside, nothing
// lost): the salvaged mnemo.db holds every message.
func TestSalvageCheckpointedDamage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range walGuardDamages() {
		t.Run(tc.name, func(t *testing.T) {
			dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
			tc.damage(t, dir, frames)
			rep, err := engine.Salvage(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}}, engine.SalvageOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if ok, n := quickCheck(t, filepath.Join(dir, engine.DatabaseFile)); ok != "ok" || n != walCrashImageN {
				t.Fatalf("the salvaged mnemo.db: quick_check %q, %d messages, want ok and %d (lost %v)", ok, n, walCrashImageN, rep.Lost)
			}
			if d := rep.WAL; d == nil || !d.SetAside || d.AppliedThroughFrame != frames || d.FramesNotApplied != 0 || d.CommitsNotApplied != 0 || d.Kept != rep.Damaged+"-wal" {
				t.Fatalf("SalvageReport.WAL = %+v, want the copy's log set aside, every frame in mnemo.db, kept as %s-wal", d, rep.Damaged)
			}
			if len(rep.Problems) > 0 || len(rep.Lost) > 0 {
				t.Fatalf("salvage: problems %q, lost %v, want none", rep.Problems, rep.Lost)
			}
		})
	}
}

// TestLastCommitDamagedNoShm: the checkpointed image whose last
// transaction's commit frame is damaged (no valid commit after the
// damage) and whose -shm is gone: mnemo.db holds that transaction, newer
// than the log's valid prefix. Backup refuses it (ErrWALDamaged: its read
// would apply the prefix over the newer pages), and CheckFile, whose
// read-only open applies the prefix and rewrites the -shm, keeps a copy
// of mnemo.db as it was first (mnemo.db.before-wal-*), as Open does
// (TestWALDamageShmInvalid). Before, neither looked: the prefix was
// applied and no copy kept.
func TestLastCommitDamagedNoShm(t *testing.T) {
	ctx := context.Background()
	image := func(t *testing.T) string {
		dir, frames := enginetest.CheckpointedWALImage(t, walCrashImageN)
		damageLastCommit(t, dir, frames)
		if err := os.Remove(filepath.Join(dir, engine.DatabaseFile+"-shm")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("Backup", func(t *testing.T) {
		dir := image(t)
		dest := filepath.Join(t.TempDir(), "b")
		if _, err := engine.Backup(ctx, engine.Config{Dir: dir}, dest, engine.BackupOptions{}); !errors.Is(err, engine.ErrWALDamaged) || !strings.Contains(err.Error(), "pages newer than the log's valid prefix") {
			t.Fatalf("Backup: %v, want ErrWALDamaged naming the newer pages", err)
		}
	})
	t.Run("CheckFile", func(t *testing.T) {
		dir := image(t)
		was, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}); err != nil {
			t.Fatalf("CheckFile: %v", err)
		}
		kept := engine.KeptDamaged(dir)
		if len(kept) != 1 || !strings.HasPrefix(kept[0], engine.DatabaseFile+".before-wal-") {
			t.Fatalf("KeptDamaged=%v, want the before-wal copy alone", kept)
		}
		if b, err := os.ReadFile(filepath.Join(dir, kept[0])); err != nil || !bytes.Equal(b, was) {
			t.Fatalf("the kept copy (%v) is not %s as it was", err, engine.DatabaseFile)
		}
	})
}
