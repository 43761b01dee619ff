package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRestoreRenamedOverOpenDatabase: a backup renamed over mnemo.db
// while an engine has it open (mv backup.db mnemo.db under mnemo serve)
// is noticed within a reread of the record of damage
// (store.DamageMarkRecheck): Ping and every write are refused with
// ErrDatabaseReplaced, an append as an erasure, and nothing is written to
// the new file; the next open, once the old file's -wal and -shm are
// deleted as the error says, reads the backup, none of the refused writes
// in it. Before, the engine went on writing the old file, which
// had no name any more: every write acknowledged after the restore was
// lost at restart.
//
// SQLite only: the data directory's file.
func TestRestoreRenamedOverOpenDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, engine.DatabaseFile)
	logs := &enginetest.SyncBuffer{}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendOne := func(id string) error {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user(id, "the ferry left at noon "+id)}})
		return err
	}
	if err := appendOne("m1"); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	vacuumInto(t, path, backup)
	if err := appendOne("m2"); err != nil { // after the backup: lost with the restore, as meant
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil { // m2's text in the lexical index
		t.Fatal(err)
	}
	if err := os.Rename(backup, path); err != nil { // the restore, under the running engine
		t.Fatal(err)
	}
	waitReplaced(t, e)
	restored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = appendOne("m3")
	if !errors.Is(err, engine.ErrDatabaseReplaced) || errors.Is(err, engine.ErrDatabaseCorrupt) || errors.Is(err, engine.ErrWALReplaced) {
		t.Fatalf("append after the restore: %v, want ErrDatabaseReplaced (not ErrDatabaseCorrupt, not ErrWALReplaced)", err)
	}
	// The advice rebuilds the indexes (readme68 F5: they hold m2's text,
	// which no erasure reaches once the backup is back).
	if want := "reindex"; !strings.Contains(err.Error(), want) {
		t.Fatalf("append after the restore: %v, want the advice to say %q", err, want)
	}
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, restored) {
		t.Fatalf("the restored mnemo.db changed under the refused writes (%v)", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, restored) {
		t.Fatalf("the restored mnemo.db changed at Close (%v)", err)
	}
	// The old file's -wal and -shm stay at their paths: the error says to
	// delete them before the restart (an open would apply that log over
	// the backup: m2 read back).
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	msgs, err := e.Messages(ctx, "t", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	if got, want := strings.Join(ids, ","), "m1"; got != want {
		t.Fatalf("messages after the restart: %s, want %s (the backup's)", got, want)
	}
	// Without the reindex the check finds m2's text in the index; with
	// it, the indexes agree with the backup.
	if err := e.Check(ctx); err == nil {
		t.Fatal("check after the restart without the reindex: ok, want the lexical index's m2 reported")
	}
	if err := e.Reindex(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after the advice's reindex: %v", err)
	}
	if err := appendOne("m4"); err != nil {
		t.Fatalf("append after the restart: %v", err)
	}
}

// TestWALRemovedUnderOpenDatabase: mnemo.db-wal removed while an engine
// writes it (the restore's step, run with the server still up) is
// noticed as a replacement too (Linux: /proc/self/fd names the removed
// log): the engine's connections would go on writing a log no later open
// reads.
func TestWALRemovedUnderOpenDatabase(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the removed -wal is found through /proc/self/fd")
	}
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the ferry left at noon")}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, engine.DatabaseFile+"-wal")); err != nil {
		t.Fatal(err)
	}
	err = waitReplaced(t, e)
	if !strings.Contains(err.Error(), "mnemo.db-wal") {
		t.Fatalf("Ping: %v, want it to name mnemo.db-wal", err)
	}
	// Told apart from mnemo.db replaced: the advice is a clean stop, which
	// keeps m1 (readme68 F11: it said mnemo.db was replaced and to delete
	// the -wal and -shm "beside the new mnemo.db").
	if !errors.Is(err, engine.ErrWALReplaced) || strings.Contains(err.Error(), "the new mnemo.db") || !strings.Contains(err.Error(), "not kill -9") {
		t.Fatalf("Ping: %v, want ErrWALReplaced saying a clean stop keeps the writes", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(dir, engine.DatabaseFile+suffix)); !os.IsNotExist(err) {
			t.Errorf("%s after the clean close: %v, want it deleted", suffix, err)
		}
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if msgs, err := e.Messages(ctx, "t", 1, 100); err != nil || len(msgs) != 1 || msgs[0].ID != "m1" {
		t.Fatalf("messages after the clean close and reopen: %v %v, want m1 (written from the removed log at close)", msgs, err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after the clean close and reopen: %v", err)
	}
}

// TestWALRemovedUnderSymlinkedDir: the -wal removed is found too when the
// data directory was given through a symbolic link, which /proc/self/fd
// names resolved (rev68: it was never found so).
func TestWALRemovedUnderSymlinkedDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the removed -wal is found through /proc/self/fd")
	}
	ctx := context.Background()
	real, link := t.TempDir(), filepath.Join(t.TempDir(), "data")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: link, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the ferry left at noon")}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(real, engine.DatabaseFile+"-wal")); err != nil {
		t.Fatal(err)
	}
	if err := waitReplaced(t, e); !strings.Contains(err.Error(), "mnemo.db-wal") {
		t.Fatalf("Ping: %v, want it to name mnemo.db-wal", err)
	}
}

// waitReplaced waits until e's Ping says ErrDatabaseReplaced, for a few
// rereads at most, and returns its error.
func waitReplaced(t *testing.T, e *engine.Engine) error {
	t.Helper()
	deadline := time.Now().Add(5 * store.DamageMarkRecheck)
	for {
		err := e.Ping(context.Background())
		if errors.Is(err, engine.ErrDatabaseReplaced) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ping %v after the replacement: %v, want ErrDatabaseReplaced", 5*store.DamageMarkRecheck, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// vacuumInto writes a copy of the database at path to to, through a
// read-only connection of its own (a backup).
func vacuumInto(t *testing.T, path, to string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`VACUUM INTO ?`, to); err != nil {
		t.Fatal(err)
	}
}

// TestWALMovedUnderOpenDatabase: mnemo.db-wal moved to another name in
// the data directory while an engine writes it (mv mnemo.db-wal
// moved-wal) is ErrWALReplaced, as its removal is: the engine's
// connections went on writing the moved file, under a name no later
// open reads and no erasure reaches, never noticed (readme71 F5). The
// clean close still writes its commits into mnemo.db; the moved file
// stays, and the error says to delete it.
func TestWALMovedUnderOpenDatabase(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the moved -wal is found through /proc/self/fd")
	}
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the ferry left at noon")}}); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "moved-wal")
	if err := os.Rename(filepath.Join(dir, engine.DatabaseFile+"-wal"), moved); err != nil {
		t.Fatal(err)
	}
	err = waitReplaced(t, e)
	if !errors.Is(err, engine.ErrWALReplaced) || !strings.Contains(err.Error(), "A log moved to another name stays there") {
		t.Fatalf("Ping: %v, want ErrWALReplaced saying to delete the moved log", err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m2", "the train was late")}}); !errors.Is(err, engine.ErrWALReplaced) {
		t.Fatalf("append after the move: %v, want ErrWALReplaced", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if msgs, err := e.Messages(ctx, "t", 1, 100); err != nil || len(msgs) != 1 || msgs[0].ID != "m1" {
		t.Fatalf("messages after the clean close and reopen: %v %v, want m1", msgs, err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("check after the clean close and reopen: %v", err)
	}
}
