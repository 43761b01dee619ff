package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
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

// walCrashImageN is the number of messages the crash image holds.
const walCrashImageN = 24

// walCrashImage appends walCrashImageN messages to a data directory while
// a reader pins the WAL (so the drainer's checkpoints copy none of them
// into mnemo.db), and copies mnemo.db, -wal and -shm into a new data
// directory while the engine is open, as kill -9 leaves them (the indexes
// are left behind: Open rebuilds them). It returns the new directory.
func walCrashImage(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	src := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: src, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	path := filepath.Join(src, engine.DatabaseFile)
	ro, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	ro.SetMaxOpenConns(1)
	pin, err := ro.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Rollback()
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
	return dst
}

// damageWALFrame flips a byte in the page of a frame of dir's WAL in its
// last two thirds whose page a later frame through the last commit writes
// again (rewritten) or not; it returns the damaged log.
func damageWALFrame(t *testing.T, dir string, rewritten bool) []byte {
	t.Helper()
	return damageWAL(t, dir, rewritten, func(b []byte, page int) []byte {
		b[page+int(binary.BigEndian.Uint32(b[8:]))/2] ^= 0x5a
		return b
	})
}

// damageWAL replaces dir's WAL with damage(b, page): b is the log, page
// the offset of the page of a frame in its last two thirds whose page a
// later frame through the last commit writes again (rewritten) or not.
// It returns the damaged log.
func damageWAL(t *testing.T, dir string, rewritten bool, damage func(b []byte, page int) []byte) []byte {
	t.Helper()
	log := filepath.Join(dir, engine.DatabaseFile+"-wal")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	s := store.ScanWAL(b)
	ps := int(binary.BigEndian.Uint32(b[8:]))
	off := func(i int) int { return 32 + (i-1)*(24+ps) }
	pgno := func(i int) uint32 { return binary.BigEndian.Uint32(b[off(i):]) }
	for k := s.LastCommit / 3; k < s.LastCommit-2; k++ {
		again := false
		for j := k + 1; j <= s.LastCommit; j++ {
			again = again || pgno(j) == pgno(k)
		}
		if again == rewritten {
			b = damage(b, off(k)+24)
			if err := os.WriteFile(log, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no frame whose page is rewritten=%v in %d frames", rewritten, s.LastCommit)
	return nil
}

// TestWALDamage: a byte flipped in a frame of a crash image's WAL made
// SQLite's recovery drop every later commit: messages appended and
// acknowledged vanished, Open and Check said nothing, and the first close
// deleted the WAL. Now Open keeps the log as mnemo.db-wal.damaged-* and
// either repairs it (the damaged frame's page is written again later:
// every message is there, a warning says so, Check passes and lists the
// copy) or says what was not applied: a warning, and Check's finding
// (CheckError.WAL, ErrDatabaseCorrupt) naming the copy.
func TestWALDamage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		rewritten bool
	}{{"Repaired", true}, {"NotApplied", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := walCrashImage(t)
			damaged := damageWALFrame(t, dir, tc.rewritten)
			var logged enginetest.SyncBuffer
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			kept := engine.KeptDamaged(dir)
			if len(kept) != 2 || !strings.HasPrefix(kept[0], engine.DatabaseFile+"-wal.damaged-") ||
				kept[1] != strings.Replace(kept[0], "-wal.", "-shm.", 1) {
				t.Fatalf("KeptDamaged=%v, want the damaged log, then the -shm kept with it", kept)
			}
			if b, err := os.ReadFile(filepath.Join(dir, kept[0])); err != nil || !bytes.Equal(b, damaged) {
				t.Fatalf("the kept log differs from the damaged one (err %v)", err)
			}
			checkWALDamage(t, e.WALDamage(), filepath.Join(dir, kept[0]), tc.rewritten)
			ms, err := e.Messages(ctx, "t", 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			err = e.Check(ctx)
			if tc.rewritten {
				if got, want := len(ms), walCrashImageN; got != want {
					t.Fatalf("messages=%d after open, want %d", got, want)
				}
				if !strings.Contains(logged.String(), "repaired exactly") {
					t.Fatalf("log=%q, want the repair said", logged.String())
				}
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			if got := len(ms); got >= walCrashImageN {
				t.Fatalf("messages=%d after open, want fewer than %d (the commits after the damage)", got, walCrashImageN)
			}
			if !strings.Contains(logged.String(), "were NOT applied") || !strings.Contains(logged.String(), kept[0]) {
				t.Fatalf("log=%q, want the loss said, naming %s", logged.String(), kept[0])
			}
			var ce *engine.CheckError
			if !errors.As(err, &ce) || len(ce.WAL) != 1 || !strings.Contains(ce.WAL[0], kept[0]) || !errors.Is(err, engine.ErrDatabaseCorrupt) {
				t.Fatalf("Check: %v, want a WAL finding naming %s", err, kept[0])
			}
			e.Close()
			// CheckFile, before an engine opens, reports it too.
			if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}); !errors.As(err, &ce) || len(ce.WAL) != 1 {
				t.Fatalf("CheckFile: %v, want the WAL finding", err)
			}
		})
	}
}

// TestWALBytesMissing: 100 bytes cut out of a frame's page in a crash
// image's WAL moved every later frame off SQLite's frame grid: its
// recovery stopped at that frame and every later message vanished without
// a word (the scan read frames on the grid only). Open now finds the
// frames off the grid: when the cut frame's page is written again later
// the log is repaired and every message is there; otherwise the loss is
// said (WALDamage, Check's finding naming the offset).
func TestWALBytesMissing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		rewritten bool
	}{{"Repaired", true}, {"NotApplied", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := walCrashImage(t)
			var at int64
			damageWAL(t, dir, tc.rewritten, func(b []byte, page int) []byte {
				ps := int(binary.BigEndian.Uint32(b[8:]))
				at = int64(page + ps - 100) // where the next frame starts once cut
				return append(b[:page+1000:page+1000], b[page+1100:]...)
			})
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ms, err := e.Messages(ctx, "t", 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			d := e.WALDamage()
			if d == nil || d.Repaired != tc.rewritten || len(d.BytesMissingAt) != 1 || d.BytesMissingAt[0] != at {
				t.Fatalf("messages=%d, WALDamage=%+v; want repaired=%v, bytes missing at %d", len(ms), d, tc.rewritten, at)
			}
			if tc.rewritten {
				if got, want := len(ms), walCrashImageN; got != want {
					t.Fatalf("messages=%d after the repair, want %d", got, want)
				}
				return
			}
			if got := len(ms); got >= walCrashImageN {
				t.Fatalf("messages=%d, want fewer than %d", got, walCrashImageN)
			}
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			var ce *engine.CheckError
			if err := e.Check(ctx); !errors.As(err, &ce) || len(ce.WAL) != 1 || !strings.Contains(ce.WAL[0], fmt.Sprintf("bytes missing at offset %d", at)) {
				t.Fatalf("Check: %v, want a WAL finding naming the offset %d", err, at)
			}
		})
	}
}

// checkWALDamage checks that d says a damaged log of the crash image, kept
// as kept, repaired or not.
func checkWALDamage(t *testing.T, d *engine.WALDamage, kept string, repaired bool) {
	t.Helper()
	if d == nil {
		t.Fatal("WALDamage = nil, want the damaged log")
	}
	if d.Log != filepath.Join(filepath.Dir(kept), engine.DatabaseFile+"-wal") || d.Kept != kept || d.Repaired != repaired ||
		len(d.DamagedFrames) == 0 || d.AppliedThroughFrame >= d.DamagedFrames[0] || d.FramesNotApplied == 0 || d.CommitsNotApplied == 0 {
		t.Fatalf("WALDamage = %+v, want log %s kept as %s, repaired=%v, frames and commits not applied", d, engine.DatabaseFile+"-wal", kept, repaired)
	}
}

// TestWALDamageAccessor: Engine.WALDamage says what the open found, for a
// library user without Config.Logger (the Warn went nowhere before, and
// only the first open after the damage finds it): nil for a sound log,
// the damage at the open that found it, nil at the next open (SQLite's
// recovery rewrote the log) and after Close. Salvage reports its copy's
// damaged log in SalvageReport.WAL, the commits not applied naming the
// damaged file's log.
func TestWALDamageAccessor(t *testing.T) {
	ctx := context.Background()
	cfg := func(dir string) engine.Config { return engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}} }
	dir := walCrashImage(t)
	sound := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sound, engine.DatabaseFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e, err := engine.Open(ctx, cfg(sound))
	if err != nil {
		t.Fatal(err)
	}
	if d := e.WALDamage(); d != nil {
		t.Fatalf("WALDamage of a sound log = %+v, want nil", d)
	}
	e.Close()

	damageWALFrame(t, dir, false)
	salvaged := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(filepath.Join(dir, engine.DatabaseFile+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(salvaged, engine.DatabaseFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e, err = engine.Open(ctx, cfg(dir))
	if err != nil {
		t.Fatal(err)
	}
	kept := engine.KeptDamaged(dir)
	if len(kept) != 2 {
		t.Fatalf("KeptDamaged=%v, want the damaged log and its -shm", kept)
	}
	checkWALDamage(t, e.WALDamage(), filepath.Join(dir, kept[0]), false)
	e.Close()
	if d := e.WALDamage(); d != nil {
		t.Fatalf("WALDamage after Close = %+v, want nil", d)
	}
	if e, err = engine.Open(ctx, cfg(dir)); err != nil {
		t.Fatal(err)
	}
	if d := e.WALDamage(); d != nil {
		t.Fatalf("WALDamage of the next open = %+v, want nil", d)
	}
	e.Close()

	rep, err := engine.Salvage(ctx, cfg(salvaged), engine.SalvageOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	checkWALDamage(t, rep.WAL, rep.Damaged+"-wal", false)
}

// TestBackupDamagedWAL: Backup of a directory no process holds, whose
// write-ahead log has commits past a damaged frame, returns ErrWALDamaged
// and writes no dest (its read-only read would have copied what SQLite
// recovers without a word). While an engine holds the directory, its Open
// has kept and repaired the log: Backup copies every message.
func TestBackupDamagedWAL(t *testing.T) {
	ctx := context.Background()
	dir := walCrashImage(t)
	damageWALFrame(t, dir, true)
	dest := filepath.Join(t.TempDir(), "b")
	if _, err := engine.Backup(ctx, engine.Config{Dir: dir}, dest, engine.BackupOptions{}); !errors.Is(err, engine.ErrWALDamaged) || !strings.Contains(err.Error(), "frame ") {
		t.Fatalf("Backup: %v, want ErrWALDamaged", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dest after the refusal: %v, want none", err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := engine.Backup(ctx, engine.Config{Dir: dir}, dest, engine.BackupOptions{})
	if err != nil || res.Messages != walCrashImageN {
		t.Fatalf("Backup while open: %+v, %v; want %d messages", res, err, walCrashImageN)
	}
}
