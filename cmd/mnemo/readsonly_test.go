package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
)

// TestReadsLeaveOutbox: the commands that only read leave the outbox rows
// as they are (emb48, after 77c9548). On a use-lite directory whose
// weights are not installed, with embeddings owed and due, mnemo threads,
// messages, export, runs, wm get and observations change no row's op,
// attempts or retry time (before, each one's drainer tried the owed
// embeddings and put them off again, attempts+1, up to 5 minutes, so that
// mnemo serve started after the weights were installed waited that long);
// the next open with the embedder then embeds them at once.
func TestReadsLeaveOutbox(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: failing512{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "compare shipping quotes for crate A and crate B"},
		{Role: "assistant", Content: "B is cheaper, A is faster"},
	}})
	if err == nil {
		err = e.SyncIndexes(ctx) // the embeddings fail: owed, put off
	}
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE outbox SET not_before = 0`); err != nil { // due now
		t.Fatal(err)
	}
	before := outboxRows(t, db)
	if !strings.Contains(before, "embed") {
		t.Fatalf("outbox %s, want the embeddings owed", before)
	}

	empty := t.TempDir()
	t.Setenv(models.EnvDir, empty)
	env := map[string]string{"MNEMO_EMBEDDER": "auto", models.EnvDir: empty}
	reads := [][]string{{"threads"}, {"messages", "--thread", "t1"}, {"export"}, {"runs"},
		{"wm", "get", "--thread", "t1"}, {"observations", "--thread", "t1"}}
	for _, args := range reads {
		code, out, stderr := run(t, env, append([]string{"--dir", dir}, args...)...)
		if code != 0 && !(args[0] == "wm" && code == 1 && strings.Contains(stderr, "no working memory stored")) {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, stderr)
		}
		if after := outboxRows(t, db); after != before {
			t.Errorf("%v changed the outbox:\n%s\nwant\n%s", args, after, before)
		}
	}

	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: padded512{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if s, err := e.Stats(ctx); err != nil || s.OutboxPending != 0 {
		t.Errorf("an open with the embedder after the reads: %d outbox rows left (%v), want 0", s.OutboxPending, err)
	}
}

// outboxRows lists the outbox rows: id, op, attempts and not_before.
func outboxRows(t *testing.T, db *sql.DB) string {
	t.Helper()
	rs, err := db.Query(`SELECT id, op, attempts, not_before FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var b strings.Builder
	for rs.Next() {
		var id, attempts, notBefore int64
		var op string
		if err := rs.Scan(&id, &op, &attempts, &notBefore); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %d %d\n", id, op, attempts, notBefore)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
