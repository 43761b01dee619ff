package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// walImage is a crash image: a database file, its -wal and -shm copied
// while the connection that wrote them was open (as kill -9 leaves them),
// with n commits of one row each in table t, none checkpointed.
type walImage struct {
	path     string // the copied database
	pageSize int
}

// crashImage writes n commits to a database in a scratch directory with
// checkpoints off, copies db+wal+shm into dir while it is open, and
// returns the copy. With big rows each commit writes a new leaf page that
// no later commit writes again; with small ones every commit rewrites the
// same leaf. With restart, 3n commits are written and checkpointed first,
// so that the n commits restart the log over an older generation's frames.
// With checkpointed, the n commits are checkpointed into the file (the log
// not reset: no commit came after) before the copy.
func crashImage(t *testing.T, dir string, n int, big, restart bool, checkpointed ...bool) walImage {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src.db")
	dsn := "file:" + (&url.URL{Path: src}).EscapedPath() + "?" + url.Values{
		"_pragma": {"journal_mode(WAL)", "synchronous(NORMAL)", "wal_autocheckpoint(0)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`)
	row := func(i int) string {
		if big {
			return fmt.Sprintf("%04d", i) + strings.Repeat("x", 3000)
		}
		return fmt.Sprintf("row %d", i)
	}
	if restart {
		for i := range 3 * n {
			exec(`INSERT INTO t (v) VALUES (?)`, row(i))
		}
		exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		exec(`DELETE FROM t`)
	}
	for i := range n {
		exec(`INSERT INTO t (v) VALUES (?)`, row(i))
	}
	if len(checkpointed) > 0 && checkpointed[0] {
		exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}
	dst := filepath.Join(dir, "m.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(src + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wal, _ := os.ReadFile(dst + "-wal")
	return walImage{path: dst, pageSize: int(binary.BigEndian.Uint32(wal[8:]))}
}

// flip changes the byte at off of the image's -wal; it returns the log as
// damaged.
func (im walImage) flip(t *testing.T, off int) []byte {
	t.Helper()
	b, err := os.ReadFile(im.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(im.path+"-wal", b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// frameOff is the offset of frame i (from 1) in the image's -wal.
func (im walImage) frameOff(i int) int { return 32 + (i-1)*(24+im.pageSize) }

// frames counts the whole frames of the image's -wal.
func (im walImage) frames(t *testing.T) int {
	b, err := os.ReadFile(im.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return (len(b) - 32) / (24 + im.pageSize)
}

// pgno is frame i's page number in the image's -wal.
func (im walImage) pgno(t *testing.T, i int) uint32 {
	b, err := os.ReadFile(im.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(b[im.frameOff(i):])
}

// rows opens the image with store.Open and counts t's rows; it returns the
// count and what Open found in the log.
func (im walImage) rows(t *testing.T) (int, *store.WALDamage) {
	t.Helper()
	db, err := store.Open(context.Background(), im.path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n, store.WALDamageOf(db)
}

// keptLogs lists the kept copies of damaged logs beside the image.
func (im walImage) keptLogs(t *testing.T) []string {
	found, err := filepath.Glob(store.KeptWALPattern(im.path))
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestWALDamageRepaired: a byte flipped in a frame of a crash image whose
// page a later commit writes again (or in header bytes the checks
// restore: a frame's page number, salts or checksums) made SQLite's
// recovery stop at that frame and drop every later commit, silently.
// Open now keeps the log as found and repairs it: every row is there.
func TestWALDamageRepaired(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name string
		off  func(im walImage) int // of the flipped byte
	}{
		{"Page", func(im walImage) int { return im.frameOff(3) + 24 + 200 }},
		{"PageNumber", func(im walImage) int { return im.frameOff(3) + 3 }},
		{"CommitSize", func(im walImage) int { return im.frameOff(3) + 7 }},
		{"Salt", func(im walImage) int { return im.frameOff(3) + 9 }},
		{"Checksum", func(im walImage) int { return im.frameOff(3) + 17 }},
		{"HeaderMagic", func(walImage) int { return 3 }},
		{"HeaderPageSize", func(walImage) int { return 10 }},
		{"HeaderCheckpointSeq", func(walImage) int { return 15 }},
		{"HeaderSalt", func(walImage) int { return 19 }},
		{"HeaderChecksum", func(walImage) int { return 27 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), n, false, false)
			damaged := im.flip(t, tc.off(im))
			got, d := im.rows(t)
			if got != n {
				t.Fatalf("rows=%d after open, want %d", got, n)
			}
			if d == nil || !d.Repaired {
				t.Fatalf("WALDamageOf=%+v, want a repaired log", d)
			}
			kept := im.keptLogs(t)
			if len(kept) != 1 || kept[0] != d.Kept {
				t.Fatalf("kept=%v, want [%s]", kept, d.Kept)
			}
			if b, err := os.ReadFile(d.Kept); err != nil || !bytes.Equal(b, damaged) {
				t.Fatalf("the kept log differs from the damaged one (err %v)", err)
			}
			if fi, err := os.Stat(d.Kept); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("kept log mode=%v (err %v), want 0600", fi.Mode().Perm(), err)
			}
		})
	}
}

// TestWALDamageReported: a byte flipped in the page of a frame that no
// later commit writes again cannot be repaired exactly: Open opens with
// what SQLite recovers, keeps the log byte for byte and says what was not
// applied (WALDamageOf). Before, nothing said so and the first close
// deleted the log.
func TestWALDamageReported(t *testing.T) {
	const n = 30
	im := crashImage(t, t.TempDir(), n, true, false)
	k := 0 // a frame of a page no later frame writes
	for i := 5; i < 20 && k == 0; i++ {
		k = i
		for j := i + 1; j <= im.frames(t); j++ {
			if im.pgno(t, j) == im.pgno(t, i) {
				k = 0
			}
		}
	}
	if k == 0 {
		t.Fatal("no frame of a page written once")
	}
	damaged := im.flip(t, im.frameOff(k)+24+100)
	got, d := im.rows(t)
	if got >= n {
		t.Fatalf("rows=%d, want fewer than %d (SQLite's recovery stops at frame %d); damage %+v", got, n, k, d)
	}
	if d == nil {
		t.Fatal("WALDamageOf=nil, want the damage reported")
	}
	if d.Repaired || d.Scan.Exact || d.Scan.NotAppliedCommits == 0 || d.Scan.Applied >= k {
		t.Fatalf("WALDamageOf=%+v scan %+v, want damage reported, not repaired, commits not applied", d, d.Scan)
	}
	if got, want := d.Scan.Damaged, []int{k}; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("damaged frames=%v, want %v", got, want)
	}
	if b, err := os.ReadFile(d.Kept); err != nil || !bytes.Equal(b, damaged) {
		t.Fatalf("the kept log differs from the damaged one (err %v)", err)
	}
	if _, err := os.Stat(strings.Replace(d.Kept, "-wal.", "-shm.", 1)); err != nil {
		t.Fatalf("the -shm was not kept beside the log: %v", err)
	}
	// A second open finds a sound log (SQLite's recovery reset it): no
	// second copy.
	if _, d := im.rows(t); d != nil {
		t.Fatalf("second open: WALDamageOf=%+v, want nil", d)
	}
	if kept := im.keptLogs(t); len(kept) != 1 {
		t.Fatalf("kept=%v, want one copy", kept)
	}
}

// TestWALNoFalseAlarm: logs as SQLite leaves them are not damage: a clean
// crash image, a torn last frame (a crash mid-write), a damaged last
// frame with nothing valid after it, and a log restarted over an older
// generation's frames (other salts); nor is a damaged frame of a log
// whose commits a checkpoint had copied into the file already (Checkpointed:
// WALScan.Backfilled). Open reports nothing and keeps no copy; every
// committed row SQLite recovers is there.
func TestWALNoFalseAlarm(t *testing.T) {
	const n = 20
	for _, tc := range []struct {
		name      string
		restart   bool
		damage    func(t *testing.T, im walImage) int // rows expected after
		big, ckpt bool
	}{
		{"Clean", false, func(*testing.T, walImage) int { return n }, false, false},
		{"TornTail", false, func(t *testing.T, im walImage) int {
			frames := im.frames(t)
			if err := os.Truncate(im.path+"-wal", int64(im.frameOff(frames)+24+im.pageSize/2)); err != nil {
				t.Fatal(err)
			}
			return n - 1
		}, false, false},
		{"LastFrameDamaged", false, func(t *testing.T, im walImage) int {
			frames := im.frames(t)
			im.flip(t, im.frameOff(frames)+24+10)
			return n - 1
		}, false, false},
		{"OlderGeneration", true, func(t *testing.T, im walImage) int {
			b, _ := os.ReadFile(im.path + "-wal")
			s := store.ScanWAL(b)
			if s.Frames <= s.LastCommit+1 {
				t.Fatalf("frames=%d last commit=%d: no older generation after the current one", s.Frames, s.LastCommit)
			}
			return n
		}, false, false},
		{"Checkpointed", false, func(t *testing.T, im walImage) int {
			// SQLite's recovery applies nothing, and the file is what the
			// last commit left. (Damage after a commit frame is a loss
			// even then: the recovered database ends at that commit's
			// size, and the checkpoint truncates the file to it.)
			im.flip(t, im.frameOff(1)+24+100)
			return n
		}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), n, tc.big, tc.restart, tc.ckpt)
			want := tc.damage(t, im)
			got, d := im.rows(t)
			if d != nil {
				t.Fatalf("WALDamageOf=%+v (scan %+v), want nil", d, d.Scan)
			}
			if got != want {
				t.Fatalf("rows=%d, want %d", got, want)
			}
			if kept := im.keptLogs(t); len(kept) != 0 {
				t.Fatalf("kept=%v, want none", kept)
			}
		})
	}
}

// FuzzScanWAL: the scan never panics on any bytes; a log it can repair
// exactly scans sound once repaired; and a log SQLite wrote (the seed)
// with its tail cut anywhere is never reported damaged.
func FuzzScanWAL(f *testing.F) {
	im := crashImage(&testing.T{}, f.TempDir(), 6, false, false)
	clean, err := os.ReadFile(im.path + "-wal")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(clean, uint32(0), byte(0))
	f.Add(clean, uint32(im.frameOff(2)+50), byte(1))
	f.Add(clean, uint32(5), byte(0x80))
	f.Add([]byte{}, uint32(0), byte(0))
	f.Add(cut(clean, im.frameOff(2)+100, 50), uint32(0), byte(1)) // bytes missing: a gap
	twoBytes := slices.Clone(clean)
	twoBytes[im.frameOff(3)+2] ^= 1
	twoBytes[im.frameOff(3)+3] ^= 1
	f.Add(twoBytes, uint32(0), byte(1))
	f.Fuzz(func(t *testing.T, b []byte, off uint32, x byte) {
		s := store.ScanWAL(b)
		if s.Lost() && s.Exact {
			fixed, err := s.Repair(b)
			if err != nil {
				t.Fatal(err)
			}
			if again := store.ScanWAL(fixed); again.Lost() || again.LastCommit != s.LastCommit {
				t.Fatalf("repaired log scans %+v, want sound through frame %d", again, s.LastCommit)
			}
		}
		if cut := int(off) % (len(clean) + 1); x == 0 {
			if s := store.ScanWAL(clean[:cut]); s.Lost() {
				t.Fatalf("SQLite's log cut at %d reported damaged: %+v", cut, s)
			}
		}
	})
}

// BenchmarkScanWAL is what Open adds for a sound log of each size, written
// by SQLite (one 4 KiB page per commit): mapping the file and scanning it
// (DamagedWAL as Open's guard does it). The Restarted log is the shape of
// a 100k bench run's largest (BENCHMARKS.md, "the write-ahead log scan"):
// 32 MiB checkpointed, then a current generation of 2 MiB over the older
// one's frames.
func BenchmarkScanWAL(b *testing.B) {
	for _, tc := range []struct {
		name          string
		mib, restartA int // the log's size in MiB; then the current generation's (0: none)
	}{{"4MiB", 4, 0}, {"16MiB", 16, 0}, {"64MiB", 64, 0}, {"32MiBRestarted", 32, 2}} {
		mib := tc.mib
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "m.db")
			dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + url.Values{
				"_pragma": {"journal_mode(WAL)", "wal_autocheckpoint(0)"},
			}.Encode()
			db, err := sql.Open("sqlite", dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(`CREATE TABLE t (v BLOB)`); err != nil {
				b.Fatal(err)
			}
			for fi, _ := os.Stat(path + "-wal"); fi == nil || fi.Size() < int64(mib)<<20; fi, _ = os.Stat(path + "-wal") {
				if _, err := db.Exec(`INSERT INTO t VALUES (randomblob(3000))`); err != nil {
					b.Fatal(err)
				}
			}
			if tc.restartA > 0 {
				if _, err := db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < tc.restartA<<20/4096; i++ {
					if _, err := db.Exec(`INSERT INTO t VALUES (randomblob(3000))`); err != nil {
						b.Fatal(err)
					}
				}
			}
			wal, err := os.ReadFile(path + "-wal")
			if err != nil {
				b.Fatal(err)
			}
			if s := store.ScanWAL(wal); tc.restartA > 0 && s.Frames <= s.LastCommit+1 {
				b.Fatalf("frames=%d last commit=%d: no older generation after the current one", s.Frames, s.LastCommit)
			}
			b.SetBytes(int64(len(wal)))
			b.ReportAllocs()
			for b.Loop() {
				if s, err := store.DamagedWAL(path, true); s != nil || err != nil {
					b.Fatalf("scan %+v, %v", s, err)
				}
			}
		})
	}
}

// TestWALDamageShmNotRegular: a damaged log whose -shm is a named pipe or
// a symbolic link. The copy read the pipe, which blocked the open for
// ever (until a writer came), and copied a link's target, from wherever
// it pointed, into the data directory. Such a -shm is now refused before
// anything (a *WALNotFileError naming it): the log is left as found, and
// once the -shm is moved aside, the next open keeps the log.
func TestWALDamageShmNotRegular(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, shm string)
	}{
		{"FIFO", func(t *testing.T, shm string) {
			if err := syscall.Mkfifo(shm, 0o600); err != nil {
				t.Skip("no named pipe here:", err)
			}
		}},
		{"Symlink", func(t *testing.T, shm string) {
			secret := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(secret, []byte("not mnemo's"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, shm); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), 40, false, false)
			damaged := im.flip(t, im.frameOff(3)+24+200)
			if err := os.Remove(im.path + "-shm"); err != nil {
				t.Fatal(err)
			}
			tc.make(t, im.path+"-shm")
			db, err := store.Open(context.Background(), im.path)
			if err == nil {
				store.CloseDB(db)
			}
			var we *store.WALNotFileError
			if !errors.As(err, &we) || !we.Index || we.Log != im.path+"-shm" {
				t.Fatalf("open: %v, want a *WALNotFileError naming the -shm", err)
			}
			if b, err := os.ReadFile(im.path + "-wal"); err != nil || !bytes.Equal(b, damaged) || len(im.keptLogs(t)) != 0 {
				t.Fatalf("the log was not left as found (err %v), or was kept", err)
			}
			if err := os.Remove(im.path + "-shm"); err != nil {
				t.Fatal(err)
			}
			if db, err = store.Open(context.Background(), im.path); err != nil {
				t.Fatal(err)
			}
			store.CloseDB(db)
			kept := im.keptLogs(t)
			if len(kept) != 1 {
				t.Fatalf("kept=%v, want the damaged log kept", kept)
			}
			if b, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(b, damaged) {
				t.Fatalf("the kept log differs from the damaged one (err %v)", err)
			}
			shm := strings.Replace(kept[0], "-wal.", "-shm.", 1)
			if _, err := os.Lstat(shm); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a -shm that is not a regular file was copied to %s (%v)", shm, err)
			}
		})
	}
}

// TestWALDamageHeaderZeroed: a log whose 32-byte header was zeroed is
// repaired from its frames (frame 1's checksums run back to the header's,
// whatever its checkpoint sequence: a restarted log's is not 0);
// one whose first 512-byte sector was zeroed, frame 1's header with it,
// is reported. SQLite ignores a log without a valid header, whole: both
// dropped every commit without a word, and check passed.
func TestWALDamageHeaderZeroed(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name     string
		zero     int // bytes zeroed from the log's start
		big      bool
		restart  bool // a log restarted: its checkpoint sequence is not 0
		repaired bool
	}{
		{"Header", 32, false, false, true},
		{"HeaderRestarted", 32, false, true, true},
		{"HeaderRestartedBigRows", 32, true, true, true},
		{"Sector", 512, false, false, false},
		{"SectorRestarted", 512, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), n, tc.big, tc.restart)
			b, err := os.ReadFile(im.path + "-wal")
			if err != nil {
				t.Fatal(err)
			}
			clear(b[:tc.zero])
			if err := os.WriteFile(im.path+"-wal", b, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(context.Background(), im.path)
			if err != nil {
				t.Fatal(err)
			}
			var got int // 0 when the table's commit was not applied either
			db.QueryRow(`SELECT count(*) FROM t`).Scan(&got)
			d := store.WALDamageOf(db)
			store.CloseDB(db)
			if d == nil {
				t.Fatalf("rows=%d, WALDamageOf=nil: the log's commits were dropped without a word", got)
			}
			if d.Repaired != tc.repaired || !d.Scan.HeaderDamaged {
				t.Fatalf("WALDamageOf=%+v scan %+v, want repaired=%v, header damaged", d, d.Scan, tc.repaired)
			}
			if tc.repaired && got != n {
				t.Fatalf("rows=%d after the repair, want %d", got, n)
			}
			if kept, err := os.ReadFile(d.Kept); err != nil || !bytes.Equal(kept, b) {
				t.Fatalf("the kept log differs from the damaged one (err %v)", err)
			}
		})
	}
}

// TestWALDamageShmNameTaken: a kept -shm copy's name already taken (a
// stray mnemo.db-shm.damaged-* left when its -wal copy was deleted, as
// check's advice says, within the same second) moves both copies to the
// next name. The open failed ("file exists") and left a -wal copy at each
// try.
func TestWALDamageShmNameTaken(t *testing.T) {
	im := crashImage(t, t.TempDir(), 40, false, false)
	damaged := im.flip(t, im.frameOff(3)+24+200)
	now := time.Now().UTC()
	for s := -60; s <= 60; s++ { // every name an open in the next minute can take first
		stray := im.path + "-shm.damaged-" + now.Add(time.Duration(s)*time.Second).Format("20060102T150405Z")
		if err := os.WriteFile(stray, []byte("stray"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, d := im.rows(t)
	if got != 40 || d == nil || !d.Repaired {
		t.Fatalf("rows=%d, WALDamageOf=%+v; want 40 rows, the log repaired", got, d)
	}
	if kept := im.keptLogs(t); len(kept) != 1 || kept[0] != d.Kept || !strings.HasSuffix(d.Kept, "-2") {
		t.Fatalf("kept=%v (%s), want one copy named with -2", kept, d.Kept)
	}
	if b, err := os.ReadFile(d.Kept); err != nil || !bytes.Equal(b, damaged) {
		t.Fatalf("the kept log differs from the damaged one (err %v)", err)
	}
}
