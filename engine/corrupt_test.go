package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// corruptFixture writes a small memory to dir and closes it.
func corruptFixture(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"the refund was approved on friday", "tomatoes need sun", "the train leaves at nine"} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m"+string(rune('1'+i)), text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", RecentN: 1, Recall: &recall.Options{TopK: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reopenConverges opens dir, expects the events named, waits for the
// indexes and checks that recall answers from the rebuilt state.
func reopenConverges(t *testing.T, dir string, want ...engine.EventReason) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	events := make(chan engine.Event, 16)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Events: events})
	if err != nil {
		t.Fatalf("open after corruption: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	mustCheck(t, e)
	evs := drainEvents(events)
	for _, r := range want {
		if !hasEvent(evs, r) {
			t.Fatalf("events %+v, want %s", evs, r)
		}
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 1}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != "m1" {
		t.Fatalf("search after repair: %v %+v", err, res)
	}
	return e
}

// TestCorruption is SQLite only: it corrupts the files of the data directory.
func TestCorruption(t *testing.T) {
	ctx := context.Background()
	t.Run("TruncatedSegments", func(t *testing.T) {
		dir := corruptFixture(t)
		segs, _ := filepath.Glob(filepath.Join(dir, engine.LexicalDir, "store", "*.zap"))
		if len(segs) == 0 {
			t.Fatal("fixture: no segment files")
		}
		for _, s := range segs {
			fi, _ := os.Stat(s)
			if err := os.Truncate(s, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}
		// bleve opens an index whose segments are cut short as empty (the
		// damaged segments are dropped): the index is behind the store and
		// is rebuilt.
		reopenConverges(t, dir, engine.EventRebuild)
	})
	t.Run("GarbageRoot", func(t *testing.T) {
		dir := corruptFixture(t)
		root := filepath.Join(dir, engine.LexicalDir, "store", "root.bolt")
		if err := os.WriteFile(root, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
		reopenConverges(t, dir, engine.EventQuarantined, engine.EventRebuild)
	})
	t.Run("IndexIsAFile", func(t *testing.T) {
		dir := corruptFixture(t)
		lex := filepath.Join(dir, engine.LexicalDir)
		if err := os.RemoveAll(lex); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lex, []byte("not a directory"), 0o600); err != nil {
			t.Fatal(err)
		}
		reopenConverges(t, dir, engine.EventQuarantined)
	})
	t.Run("MissingIndex", func(t *testing.T) {
		dir := corruptFixture(t)
		if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
			t.Fatal(err)
		}
		reopenConverges(t, dir, engine.EventRebuild)
	})
	t.Run("MissingVectorState", func(t *testing.T) {
		dir := corruptFixture(t)
		e, err := engine.Open(ctx, engine.Config{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.DBOf(e).ExecContext(ctx, `DELETE FROM embeddings`); err != nil {
			t.Fatal(err)
		}
		if err := e.Check(ctx); !errors.Is(err, engine.ErrInconsistent) {
			t.Fatalf("check with embeddings gone: %v, want ErrInconsistent", err)
		}
		e.Close()
		e = reopenConverges(t, dir, engine.EventRebuild)
		var n int
		engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings`).Scan(&n)
		if n != 3 {
			t.Fatalf("%d embeddings after repair, want 3", n)
		}
	})
	t.Run("BadJournalPayload", func(t *testing.T) {
		dir := corruptFixture(t)
		e, err := engine.Open(ctx, engine.Config{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.DBOf(e).ExecContext(ctx, `UPDATE journal SET output = x'7b226e6f7420' WHERE scope = 'memctx'`); err != nil {
			t.Fatal(err)
		}
		e.Close()
		e = reopenConverges(t, dir)
		if _, err := e.Journal().MemCtx(ctx, "run-1"); err == nil || !strings.Contains(err.Error(), "run-1") {
			t.Fatalf("reading a corrupt record: %v, want an error naming the run", err)
		}
		if _, err := e.Replay(ctx, "run-1", engine.ReplayOptions{}); err == nil {
			t.Fatal("replay of a corrupt record succeeded")
		}
		if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{}); err != nil || len(runs) != 1 {
			t.Fatalf("list runs: %v %d", err, len(runs))
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "t", Recall: &recall.Options{TopK: 2}}); err != nil {
			t.Fatal(err)
		}
		// Erasing a turn the corrupt record names removes the record: it
		// cannot be scrubbed.
		if _, err := engine.DBOf(e).ExecContext(ctx, `UPDATE journal SET output = CAST('{"recalled":[{"messageId":"m1","preview":"the refund was appr' AS BLOB) WHERE key = 'run-1:memctx'`); err != nil {
			t.Fatal(err)
		}
		res, err := e.DeleteMessages(ctx, "m1")
		if err != nil || res.MemCtxScrubbed != 2 {
			t.Fatalf("erase: %v, scrubbed %+v", err, res)
		}
		if _, err := e.Journal().RawMemCtx(ctx, "run-1"); !errors.Is(err, journal.ErrNotFound) {
			t.Fatalf("corrupt record naming an erased turn: %v, want it deleted", err)
		}
		mustCheck(t, e)
	})
	t.Run("CorruptDatabase", func(t *testing.T) {
		dir := t.TempDir()
		db := filepath.Join(dir, engine.DatabaseFile)
		garbage := bytes.Repeat([]byte("this is not sqlite "), 300)
		if err := os.WriteFile(db, garbage, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := engine.Open(ctx, engine.Config{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), db) || !strings.Contains(err.Error(), "not a database") {
			t.Fatalf("err=%v, want an error naming %s with SQLite's message", err, db)
		}
		after, _ := os.ReadFile(db)
		if !bytes.Equal(after, garbage) {
			t.Fatal("the corrupt database was modified")
		}
		// The lock file (engine.LockFile, taken before the database is
		// opened) is the only other file.
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			if e.Name() != engine.LockFile {
				names = append(names, e.Name())
			}
		}
		if len(names) != 1 {
			t.Fatalf("open wrote into the data directory: %v", names)
		}
	})
	t.Run("TruncatedDatabase", func(t *testing.T) {
		dir := corruptFixture(t)
		db := filepath.Join(dir, engine.DatabaseFile)
		fi, _ := os.Stat(db)
		if err := os.Truncate(db, fi.Size()/3); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(db)
		e, err := engine.Open(ctx, engine.Config{Dir: dir})
		if err == nil {
			// The header may still read; the damage must then surface as an
			// error, not a panic or silent data.
			defer e.Close()
			if err := e.Check(ctx); err == nil {
				t.Fatal("a truncated database passed Check")
			}
			return
		}
		if !strings.Contains(err.Error(), db) {
			t.Fatalf("err=%v, want an error naming %s", err, db)
		}
		if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
			t.Fatal("the truncated database was modified")
		}
	})
}
