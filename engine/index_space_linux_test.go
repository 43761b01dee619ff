//go:build linux

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// indexOnTmpfs returns the configuration of a data directory whose index
// directory is a tmpfs of size bytes of its own, as the lexical index's
// disk filling while mnemo.db's still has room (disk51: SQLite took the
// appends, bleve could not write), and that tmpfs. Needs root.
func indexOnTmpfs(t *testing.T, size int64) (engine.Config, string) {
	t.Helper()
	ctx := context.Background()
	cfg := engine.Config{Dir: filepath.Join(t.TempDir(), "d"), Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg) // mnemo.db first: an index without it is a leftover
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(cfg.Dir, filepath.Dir(engine.LexicalDir))
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return cfg, mnt
}

// appendNotes appends n messages to resource r in appends of 100.
func appendNotes(t *testing.T, e *engine.Engine, from, n int) {
	t.Helper()
	for b := from; b < from+n; b += 100 {
		ms := make([]engine.Message, min(100, from+n-b))
		for i := range ms {
			ms[i] = user(fmt.Sprintf("m-%d", b+i), strings.Repeat(fmt.Sprintf("note %d about the night train to Porto. ", b+i), 4))
		}
		if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexNoRoomStopsDrain: disk51's leftovers 1, 3 and 4. On a disk
// where mnemo.db still took the appends but the lexical index could not
// write, a drain took every batch in turn (each read, embedded, given to
// bleve's memory, refused and deferred: mnemo check took 87 s to fail,
// and then passed the drain as done), bleve's memory grew with every
// batch, and DiskFull (/healthz) said nothing. Now the drain stops at the
// first refusal with ErrNoSpace, the later batches are not touched
// (attempts 0) and not given to bleve, DiskFull says so, and once the
// index writes again it clears. Needs root (a tmpfs).
func TestIndexNoRoomStopsDrain(t *testing.T) {
	ctx := context.Background()
	cfg, mnt := indexOnTmpfs(t, 4<<20)
	cfg.KeepOutbox = true // no background drainer: SyncIndexes drains
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendNotes(t, e, 0, 1)
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	fill(t, filler)
	// Files of the first batch scorch removes after the fill leave room:
	// top the filler up once they are gone.
	time.Sleep(500 * time.Millisecond)
	fill(t, filler)

	const batch = 512
	appendNotes(t, e, 1, 3*batch+10)
	err = e.SyncIndexes(ctx)
	if !errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "lexical index") {
		t.Fatalf("drain with no room for the index: %v, want ErrNoSpace naming the lexical index", err)
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("DiskFull while the index cannot write: %v, want ErrNoSpace", err)
	}
	var tried int
	if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE attempts > 0`).Scan(&tried); err != nil {
		t.Fatal(err)
	}
	if tried > batch {
		t.Errorf("%d outbox rows tried on the full disk, want at most one batch (%d): the drain goes on after the index refused its batch", tried, batch)
	}
	held, err := engine.LexicalCount(e)
	if err != nil {
		t.Fatal(err)
	}
	if held > 1+batch {
		t.Errorf("the index holds %d documents, want at most %d: the batches after the refused one were given to bleve's memory", held, 1+batch)
	}
	// The appends go on: nothing more goes into bleve's memory.
	appendNotes(t, e, 1+3*batch+10, 2*batch)
	if err := e.SyncIndexes(ctx); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("drain with no room for the index, again: %v, want ErrNoSpace", err)
	}
	if n, err := engine.LexicalCount(e); err != nil || n != held {
		t.Errorf("the index holds %d documents (%v) after more appends on the full disk, want %d: bleve's memory grows with the appends", n, err, held)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for e.DiskFull() != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := e.DiskFull(); err != nil {
		t.Fatalf("DiskFull a minute after the index's disk has room: %v, want nil (scorch retries every 250 ms)", err)
	}
}

// TestIndexRoomAgainRetriesOwed: disk51's leftover 2. The rows deferred
// while the index's disk was full waited out their backoff (up to 5
// minutes) once there was room again. Now the first write of the index
// that succeeds makes them due and the drainer indexes them. Needs root
// (a tmpfs).
func TestIndexRoomAgainRetriesOwed(t *testing.T) {
	ctx := context.Background()
	cfg, mnt := indexOnTmpfs(t, 4<<20)
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendNotes(t, e, 0, 1)
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	fill(t, filler)
	appendNotes(t, e, 1, 300)
	// The first batch's files may be cleaned up after the fill (scorch's
	// persister and merger run in the background), and a batch then fits
	// in the room they leave: top the filler up and append more until the
	// drainer's batch is refused (a whole-package run of 2026-12-06, under
	// load, saw DiskFull nil for the whole minute).
	deadline := time.Now().Add(time.Minute)
	for next := 301; e.DiskFull() == nil && time.Now().Before(deadline); next += 100 {
		time.Sleep(100 * time.Millisecond)
		fill(t, filler)
		appendNotes(t, e, next, 100)
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("DiskFull after the drainer's batch found no room for the index: %v, want ErrNoSpace", err)
	}
	// As after a long outage: every row owed deferred for 5 minutes.
	if _, err := engine.DBOf(e).ExecContext(ctx, `UPDATE outbox SET attempts = 9, not_before = ?`, time.Now().Add(5*time.Minute).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	remount(t, mnt, 64<<20, false) // salvage_space_linux_test.go

	deadline = time.Now().Add(time.Minute)
	var st engine.Stats
	for time.Now().Before(deadline) {
		if st, err = e.Stats(ctx); err != nil {
			t.Fatal(err)
		}
		if st.OutboxPending == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.OutboxPending != 0 {
		t.Fatalf("%d outbox rows still owed a minute after the index's disk had room: they wait out their backoff", st.OutboxPending)
	}
	if err := e.DiskFull(); err != nil {
		t.Errorf("DiskFull once the index writes again: %v, want nil", err)
	}
	if err := e.Check(ctx); err != nil {
		t.Errorf("check once the owed rows are indexed: %v", err)
	}
}

// TestDiskFullCommitKeepsIndexRefusal: disk56's 1. A write transaction
// that committed after one the disk refused cleared DiskFull whole, also
// the lexical index's refusal, while the index still could not write (a
// shared disk with room for a small commit, not for the index's segment):
// /healthz said ok with the drain stopped and the messages owed. Now the
// commit clears mnemo.db's refusal only, and DiskFull stays set until the
// index writes. mnemo.db and the index are on tmpfs of their own here, so
// that one has room and the other none. Needs root.
func TestDiskFullCommitKeepsIndexRefusal(t *testing.T) {
	ctx := context.Background()
	dbDisk := mountTmpfs(t, 8<<20) // salvage_space_linux_test.go
	cfg := engine.Config{Dir: filepath.Join(dbDisk, "d"), Embedder: recall.HashEmbedder{}}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, filepath.Dir(engine.LexicalDir)), 0o700); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	indexDisk := filepath.Join(cfg.Dir, filepath.Dir(engine.LexicalDir))
	if err := syscall.Mount("tmpfs", indexDisk, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", 4<<20)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(indexDisk, syscall.MNT_DETACH) })

	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendNotes(t, e, 0, 1)
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	indexFiller := filepath.Join(indexDisk, "filler")
	refuseIndex(t, e, indexFiller, 1)

	// mnemo.db's disk fills too: an append is refused.
	dbFiller := filepath.Join(dbDisk, "filler")
	fill(t, dbFiller)
	big := strings.Repeat("the night train to Porto ", 4000)
	for range 200 {
		if _, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", big)}}); err != nil {
			break
		}
	}
	if !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("append on a full disk: %v, want ErrNoSpace", err)
	}
	if err := os.Remove(dbFiller); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "room again for mnemo.db")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.IndexRefused(e); err == nil {
		t.Fatal("the index's disk is full, but its writes are not refused: the test no longer reaches its case")
	}
	err = e.DiskFull()
	if !errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "lexical index") {
		t.Fatalf("DiskFull after a commit while the index still cannot write: %v, want ErrNoSpace naming the lexical index", err)
	}

	if err := os.Remove(indexFiller); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for e.DiskFull() != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := e.DiskFull(); err != nil {
		t.Fatalf("DiskFull a minute after the index's disk has room: %v, want nil", err)
	}
}

// refuseIndex fills the index's disk (filler) and appends notes from
// message from on, a hundred at a time, until the drainer's batch is
// refused for lack of room (DiskFull); it returns the next message
// number. The first batch's files may be cleaned up after the fill
// (scorch's persister and merger run in the background), and a batch then
// fits in the room they leave: the filler is topped up between appends.
func refuseIndex(t *testing.T, e *engine.Engine, filler string, from int) int {
	t.Helper()
	fill(t, filler)
	deadline := time.Now().Add(time.Minute)
	next := from
	for e.DiskFull() == nil && time.Now().Before(deadline) {
		appendNotes(t, e, next, 100)
		next += 100
		time.Sleep(100 * time.Millisecond)
		fill(t, filler)
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("DiskFull after the drainer's batch found no room for the index: %v, want ErrNoSpace", err)
	}
	return next
}

// TestIndexRoomAtOpenRetriesOwed: disk56's 2. The rows deferred while
// the index's disk was full, by a process that then stopped, waited out
// their stored backoff (up to 5 minutes) after the next Open although the
// disk had room again: no write of that process's index had been refused,
// so none succeeding after one woke the drainer. Now a writer's Open
// makes the index and delete rows an earlier process deferred due at
// once. Needs root (a tmpfs).
func TestIndexRoomAtOpenRetriesOwed(t *testing.T) {
	ctx := context.Background()
	cfg, mnt := indexOnTmpfs(t, 4<<20)
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	appendNotes(t, e, 0, 1)
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	refuseIndex(t, e, filepath.Join(mnt, "filler"), 1)
	// As after a long outage: every row owed deferred for 5 minutes.
	if _, err := engine.DBOf(e).ExecContext(ctx, `UPDATE outbox SET attempts = 9, not_before = ?`, time.Now().Add(5*time.Minute).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	remount(t, mnt, 64<<20, false) // salvage_space_linux_test.go

	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	deadline := time.Now().Add(time.Minute)
	var st engine.Stats
	for time.Now().Before(deadline) {
		if st, err = e.Stats(ctx); err != nil {
			t.Fatal(err)
		}
		if st.OutboxPending == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.OutboxPending != 0 {
		t.Fatalf("%d outbox rows still owed a minute after an Open on a disk with room: they wait out their backoff", st.OutboxPending)
	}
	if err := e.DiskFull(); err != nil {
		t.Errorf("DiskFull once the owed rows are indexed: %v, want nil", err)
	}
	if err := e.Check(ctx); err != nil {
		t.Errorf("check once the owed rows are indexed: %v", err)
	}
}
