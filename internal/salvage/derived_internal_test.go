package salvage

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestCopyRelinksRecalledResults: a salvage does not copy journal_tool_obs
// (the observation ids each recorded tool result lists) but has the
// schema write it again from the journal rows kept: the links of a kept
// result are there, those of a result dropped as an orphan (its thread
// lost) go with it, and a link the damaged file held to no result is not
// carried over; nothing is reported refused.
func TestCopyRelinksRecalledResults(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	db, err := store.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx) // one connection: foreign keys off for the stale link
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t', 'r', 0, 0)`,
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES
			('tool', 'kept', 't', 'r', CAST('{"ok":true,"observations":[{"id":"A"},{"id":"B"}]}' AS BLOB), 0),
			('tool', 'orphan', 'lost', 'r', CAST('{"ok":true,"observations":[{"id":"A"}]}' AS BLOB), 0)`,
		`PRAGMA foreign_keys = OFF`,
		`INSERT INTO journal_tool_obs (obs_id, scope, key) VALUES ('C', 'tool', 'gone')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	store.CloseDB(db)
	rep, err := Copy(ctx, src, dst, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range rep.Tables {
		if tb.Invalid > 0 || tb.Name == "journal_tool_obs" {
			t.Errorf("report of %s: %+v", tb.Name, tb)
		}
	}
	out, err := store.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(out)
	var got string
	if err := out.QueryRowContext(ctx, `SELECT COALESCE(group_concat(key || ':' || obs_id, ' '), '') FROM (SELECT key, obs_id FROM journal_tool_obs ORDER BY key, obs_id)`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "kept:A kept:B"; got != want {
		t.Fatalf("links after the salvage: %q, want %q", got, want)
	}
}
