//go:build linux

package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDiskFullIsNoDamage: on a data directory whose disk fills up (a 2
// MiB tmpfs), the append that finds no room fails with ErrNoSpace, which
// names the disk and says that nothing committed is lost, and no command
// after it takes the full disk for a damaged index. walk35: "commit:
// database or disk is full (13)" with no advice, then every command
// (threads too) said "the lexical index was found damaged … moved to
// quarantine" and failed on "no space left on device": five commands,
// five quarantine directories. Once there is room the directory checks
// ok.
func TestDiskFullIsNoDamage(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 2<<20) // salvage_space_linux_test.go; skips without root
	cfg := engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var appendErr error
	for b := 0; b < 200 && appendErr == nil; b++ {
		ms := make([]engine.Message, 50)
		for i := range ms {
			ms[i] = user(fmt.Sprintf("m-%d-%d", b, i), strings.Repeat(fmt.Sprintf("note %d of batch %d about the night train to Porto. ", i, b), 4))
		}
		_, appendErr = e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", b%10), ResourceID: "r", Messages: ms})
	}
	e.Close()
	if !errors.Is(appendErr, engine.ErrNoSpace) || !strings.Contains(appendErr.Error(), "nothing committed is lost") {
		t.Fatalf("the write that found the disk full: %v, want ErrNoSpace saying nothing committed is lost", appendErr)
	}
	// The index in use when the disk filled was quarantined in some runs
	// (readme48 F1: bleve closed the segment of a batch it could not
	// persist, and the next batch panicked; recall/persist.go), and the
	// opens on the full disk make no quarantine either.
	if n := quarantined(cfg.Dir); n != 0 {
		t.Fatalf("a full disk was taken for damage: %d quarantine directories while appending", n)
	}
	for i := 0; i < 3; i++ {
		e, err := engine.Open(ctx, cfg)
		if err == nil {
			_, err = e.ThreadsPage(ctx, engine.ThreadsRequest{})
			e.Close()
		}
		if err != nil && !errors.Is(err, engine.ErrNoSpace) {
			t.Errorf("open %d on the full disk: %v, want nil or ErrNoSpace", i+1, err)
		}
	}
	if n := quarantined(cfg.Dir); n != 0 {
		t.Fatalf("a full disk was taken for damage: %d quarantine directories made by 3 opens", n)
	}
	remount(t, mnt, 30<<20, false)
	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		// Outbox rows that failed on the full disk wait out their retry
		// backoff (up to minutes; SyncIndexes leaves deferred rows to the
		// drainer): a rebuild from the committed rows must make the store
		// whole, with nothing committed lost.
		t.Logf("check once there is room, before a rebuild: %v", err)
		if err := e.Reindex(ctx, false); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.Check(ctx); err != nil {
			t.Fatalf("check once there is room, after a rebuild: %v", err)
		}
	}
}

// quarantined counts the quarantine directories of the data directory dir.
func quarantined(dir string) int {
	q, _ := os.ReadDir(filepath.Join(dir, engine.QuarantineDir))
	return len(q)
}

// TestReadWithoutIndexOnFullDisk: readme51 F3. On a full disk whose
// lexical index was gone (quarantined earlier, or moved away), every read
// command (threads, messages, export) failed "open lexical index …: write
// index_meta.json: no space left": each open must create an index and
// could not. Now a KeepOutbox open (a command that only reads) opens
// without it and reads mnemo.db, IndexUnavailable saying why; an open
// that writes still fails with ErrNoSpace, and once there is room the
// index is created and rebuilt.
func TestReadWithoutIndexOnFullDisk(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 2<<20) // salvage_space_linux_test.go; skips without root
	cfg := engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r",
		Messages: []engine.Message{user("m1", "night train to Porto")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	// Another connection stays open throughout, as a server's beside a
	// command's: the database's shared memory (-shm) stays for the next
	// open. Without it a clean close deletes the -shm, and whether Close
	// was clean depended on timing (flake53: under load the last
	// checkpoint found room and the reader's open could not create the
	// -shm on the filled disk: ErrNoSpace, SQLITE_IOERR_SHMSIZE). A
	// reader on a disk full to the last page with no -shm reads without
	// it: TestReadWithoutShmOnFullDisk.
	other := holdConn(t, filepath.Join(cfg.Dir, engine.DatabaseFile))
	// Filled by appends, as an ingest fills it.
	var appendErr error
	for b := 0; b < 200 && appendErr == nil; b++ {
		ms := make([]engine.Message, 50)
		for i := range ms {
			ms[i] = user(fmt.Sprintf("m-%d-%d", b, i), strings.Repeat(fmt.Sprintf("note %d of batch %d about sailing. ", i, b), 4))
		}
		_, appendErr = e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: "r", Messages: ms})
	}
	e.Close()
	if !errors.Is(appendErr, engine.ErrNoSpace) {
		t.Fatalf("the append that filled the disk: %v, want ErrNoSpace", appendErr)
	}
	// Moved out on the same disk (no room freed), as a quarantine moves it.
	if err := os.Rename(filepath.Join(cfg.Dir, engine.LexicalDir), filepath.Join(mnt, "lexical.moved")); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(mnt, "filler"))

	if _, err := engine.Open(ctx, cfg); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("a writer's open on the full disk with no index: %v, want ErrNoSpace", err)
	}
	read := cfg
	read.KeepOutbox, read.LazyEmbedder = true, true
	e, err = engine.Open(ctx, read)
	if err != nil {
		t.Fatalf("a reader's open on the full disk with no index: %v, want it open", err)
	}
	page, err := e.ThreadsPage(ctx, engine.ThreadsRequest{})
	if err != nil || len(page.Threads) != 2 {
		t.Errorf("threads: %+v, %v, want t1 and t2", page, err)
	}
	if ms, err := e.Messages(ctx, "t1", 0, 0); err != nil || len(ms) != 1 || ms[0].Content != "night train to Porto" {
		t.Errorf("messages: %+v, %v, want the one stored", ms, err)
	}
	if err := e.IndexUnavailable(); !errors.Is(err, engine.ErrIndexUnavailable) || !errors.Is(err, engine.ErrNoSpace) {
		t.Errorf("IndexUnavailable: %v, want ErrIndexUnavailable naming the full disk", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := quarantined(cfg.Dir); n != 0 {
		t.Fatalf("a full disk was taken for damage: %d quarantine directories", n)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	remount(t, mnt, 30<<20, false)
	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check once there is room: %v", err)
	}
}

// readSharedWriterEnv names the database TestReadSharedWriter writes to.
const readSharedWriterEnv = "MNEMO_TEST_READSHARED_WRITER"

// TestReadSharedWriter is TestReadWithoutShmOnFullDisk's other process:
// it titles thread t1 "to Porto" and checkpoints the WAL (TRUNCATE). It
// runs only as that child.
func TestReadSharedWriter(t *testing.T) {
	path := os.Getenv(readSharedWriterEnv)
	if path == "" {
		t.Skip("TestReadWithoutShmOnFullDisk's child process")
	}
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`UPDATE threads SET title = 'to Porto' WHERE id = 't1'`); err != nil {
		t.Fatalf("write: %v", err)
	}
	var busy, logged, done int
	if err := w.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	t.Logf("checkpoint: busy %d, %d frames logged, %d checkpointed", busy, logged, done)
}

// holdConn opens a connection of its own to the SQLite database at path
// and keeps it open (with its read of the schema done) until the caller
// closes it, or the test ends.
func holdConn(t *testing.T, path string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRowContext(context.Background(), `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReadWithoutShmOnFullDisk: flake53's leftover (disk56 #3). A
// reader's open of a data directory closed cleanly (its -wal and -shm
// deleted) on a disk then filled to the last page failed with ErrNoSpace
// until about 32 KiB were free: SQLite reads a WAL-mode database through
// its shared memory (-shm, 32 KiB), which it could not create there
// (SQLITE_IOERR_SHMSIZE). Now a reader (KeepOutbox) opens it read-only
// with the WAL index in its own memory and reads; a writer's open still
// fails with ErrNoSpace; a write by another connection once there is room
// (it sets the shared memory up) is read by the open reader, and the
// full disk is not taken for damage.
func TestReadWithoutShmOnFullDisk(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 2<<20) // salvage_space_linux_test.go; skips without root
	cfg := engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r",
		Messages: []engine.Message{user("m1", "night train to Porto")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, engine.DatabaseFile+"-shm")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("-shm after a clean close: %v, want it deleted", err)
	}
	fill(t, filepath.Join(mnt, "filler"))
	if _, err := engine.Open(ctx, cfg); !errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "free space there") {
		t.Fatalf("a writer's open with no -shm on the full disk: %v, want ErrNoSpace saying to free space", err)
	}
	read := cfg
	read.KeepOutbox, read.LazyEmbedder = true, true
	r, err := engine.Open(ctx, read)
	if err != nil {
		t.Fatalf("a reader's open with no -shm on the full disk: %v, want it open", err)
	}
	defer r.Close()
	page, err := r.ThreadsPage(ctx, engine.ThreadsRequest{})
	if err != nil || len(page.Threads) != 1 || page.Threads[0].Title != "" {
		t.Fatalf("threads on the full disk: %+v, %v, want t1", page, err)
	}
	if ms, err := r.Messages(ctx, "t1", 0, 0); err != nil || len(ms) != 1 || ms[0].Content != "night train to Porto" {
		t.Errorf("messages on the full disk: %+v, %v, want the one stored", ms, err)
	}
	if res, err := r.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "train to Porto"}); err != nil || len(res.Hits) != 1 {
		t.Errorf("search on the full disk: %+v, %v, want the message", res, err)
	}

	// Another program writes once there is room, beside the reader, and
	// checkpoints: the reader's next read sees the write.
	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	// A process of its own: the connections of one process share the
	// reader's read-only shared memory (SQLite's per-file node).
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadSharedWriter$", "-test.count=1")
	cmd.Env = childEnv(t, readSharedWriterEnv+"="+filepath.Join(cfg.Dir, engine.DatabaseFile)) // main_test.go
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a write and checkpoint by another process beside the reader: %v\n%s", err, out)
	}
	page, err = r.ThreadsPage(ctx, engine.ThreadsRequest{})
	if err != nil || len(page.Threads) != 1 || page.Threads[0].Title != "to Porto" {
		t.Errorf("threads after another connection's write: %+v, %v, want t1 titled \"to Porto\"", page, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("close of the reader: %v", err)
	}
	if n := quarantined(cfg.Dir); n != 0 {
		t.Fatalf("a full disk was taken for damage: %d quarantine directories", n)
	}
}
