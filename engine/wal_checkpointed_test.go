package engine_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// walCheckpointedImage appends walCrashImageN messages to a data
// directory, has a checkpoint copy every frame of the log into mnemo.db
// (the -shm's nBackfill == mxFrame, as a served directory's drainer leaves
// it), and copies mnemo.db, -wal and -shm into a new data directory while
// the engine is open, as kill -9 leaves them. It returns the new
// directory and the log's frame count (mxFrame).
func walCheckpointedImage(t *testing.T) (string, int) {
	t.Helper()
	ctx := context.Background()
	src := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: src, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(src, engine.DatabaseFile)
	rw, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	rw.SetMaxOpenConns(1)
	// A reader pins the log while the messages are appended, so that no
	// checkpoint of the engine's restarts it; then one checkpoint copies
	// every frame.
	pin, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pin.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	for i := range walCrashImageN {
		text := fmt.Sprintf("message %d: ", i) + strings.Repeat("lorem ipsum ", 150)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user(fmt.Sprintf("m%02d", i), text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pin.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The engine's own checkpoint may hold the checkpoint lock (busy):
	// then this one tries again once it is done.
	busy, logged, done := 1, 0, 0
	for try := 0; busy != 0 && try < 1000; try++ {
		if try > 0 {
			time.Sleep(time.Millisecond)
		}
		if err := rw.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logged, &done); err != nil {
			t.Fatal(err)
		}
	}
	if busy != 0 || logged != done || logged < 12 {
		t.Fatalf("checkpoint: busy %d, %d of %d frames, want every frame of a log of 12 or more", busy, done, logged)
	}
	dst := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, engine.DatabaseFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	shm, err := os.ReadFile(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	if mx, nb := binary.LittleEndian.Uint32(shm[16:]), binary.LittleEndian.Uint32(shm[96:]); int(mx) != logged || mx != nb {
		t.Fatalf("the -shm says mxFrame %d, nBackfill %d, want both %d", mx, nb, logged)
	}
	return dst, logged
}

// walDamages are the damages review22 made to a checkpointed log after
// its first commit: b is the log, k a frame (from 1) after its first
// commit, ps the page size.
var walDamages = []struct {
	name   string
	damage func(b []byte, k, ps int) []byte
}{
	{"PageBit", func(b []byte, k, ps int) []byte { b[walOff(k, ps)+24+2000] ^= 0x01; return b }},
	{"PageBytesMissing", func(b []byte, k, ps int) []byte {
		at := walOff(k, ps) + 24 + 100
		return append(b[:at:at], b[at+100:]...)
	}},
	{"FrameZeroed", func(b []byte, k, ps int) []byte { clear(b[walOff(k, ps):walOff(k+1, ps)]); return b }},
	{"Inserted4KiB", func(b []byte, k, ps int) []byte {
		at := walOff(k, ps)
		return append(append(b[:at:at], make([]byte, 4096)...), b[at:]...)
	}},
	{"HeaderBytesMissing", func(b []byte, k, ps int) []byte {
		at := walOff(k, ps) + 4
		return append(b[:at:at], b[at+8:]...)
	}},
	{"Frame1HeaderZeroed", func(b []byte, _, ps int) []byte { clear(b[walOff(1, ps) : walOff(1, ps)+24]); return b }},
}

// walOff is the offset of frame k (from 1) in a log of page size ps.
func walOff(k, ps int) int { return 32 + (k-1)*(24+ps) }

// damageCheckpointedWAL damages dir's log with damage at a frame after
// its first commit, in its last two thirds, whose page no later frame
// writes again (so that no exact repair undoes the damage).
func damageCheckpointedWAL(t *testing.T, dir string, frames int, damage func(b []byte, k, ps int) []byte) {
	t.Helper()
	log := filepath.Join(dir, engine.DatabaseFile+"-wal")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(binary.BigEndian.Uint32(b[8:]))
	pgno := func(i int) uint32 { return binary.BigEndian.Uint32(b[walOff(i, ps):]) }
	first := 1
	for ; binary.BigEndian.Uint32(b[walOff(first, ps)+4:]) == 0; first++ {
	}
	for k := max(first+1, frames/3); k < frames-1; k++ {
		again := false
		for j := k + 1; j <= frames; j++ {
			again = again || pgno(j) == pgno(k)
		}
		if !again {
			if err := os.WriteFile(log, damage(b, k, ps), 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no frame after the first commit (frame %d of %d) whose page is not written again", first, frames)
}

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
	for _, tc := range walDamages {
		t.Run(tc.name, func(t *testing.T) {
			dir, frames := walCheckpointedImage(t)
			damageCheckpointedWAL(t, dir, frames, tc.damage)
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
		t.Run(tc.name+"CheckFirst", func(t *testing.T) {
			dir, frames := walCheckpointedImage(t)
			damageCheckpointedWAL(t, dir, frames, tc.damage)
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
		t.Run(tc.name, func(t *testing.T) {
			dir, frames := walCheckpointedImage(t)
			damageCheckpointedWAL(t, dir, frames, walDamages[0].damage)
			if err := tc.shm(filepath.Join(dir, engine.DatabaseFile+"-shm")); err != nil {
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
		})
	}
}
