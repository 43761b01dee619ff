package pgstore_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestMigrateRecalledLinks: migration 14 links the tool results recorded
// before it to the observation ids each lists (the "id" string of each
// object of its "observations" array), none for a result that is not
// UTF-8 JSON of that shape (the insert of such a result must not fail
// either) or for another scope's record; the trigger links a result
// recorded after it, and a deleted result's links go with it (the
// foreign key), so an erasure finds every result of an invalidated
// observation by its links (journal.ForgetToolResults).
func TestMigrateRecalledLinks(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, dsn, 13); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		scope, key string
		out        []byte
	}{
		{"tool", "k-two", []byte(`{"ok":true,"observations":[{"id":"A","text":"x"},{"id":"B","text":"y"}]}`)},
		{"tool", "k-one", []byte(`{"ok":true,"observations":[{"id":"B"}]}`)},
		{"tool", "k-bad", []byte(`{"observations":[{"id":"A"}`)},
		{"tool", "k-binary", []byte("\xff{\"observations\":[{\"id\":\"A\"}]}")},
		{"tool", "k-nul", []byte(`{"observations":[{"id":"A\u0000"}]}`)},
		{"tool", "k-other", []byte(`{"text":"observations A"}`)},
		{"memo", "k-memo", []byte(`{"observations":[{"id":"A"}]}`)},
	} {
		pgtest.Exec(t, dsn, `INSERT INTO journal (scope, key, resource_id, output, created_at) VALUES ($1, $2, 'r', $3, 0)`, r.scope, r.key, r.out)
	}
	if err := pgstore.MigrateTo(ctx, dsn, 14); err != nil {
		t.Fatal(err)
	}
	pool := mustOpen(t, dsn)
	links := func() string {
		t.Helper()
		var s *string
		if err := pool.QueryRow(ctx, `SELECT string_agg(key || ':' || obs_id, ' ' ORDER BY key, obs_id) FROM journal_tool_obs`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return ""
		}
		return *s
	}
	if got, want := links(), "k-one:B k-two:A k-two:B"; got != want {
		t.Fatalf("links after the migration: %q, want %q", got, want)
	}
	pgtest.Exec(t, dsn, `INSERT INTO journal (scope, key, resource_id, output, created_at) VALUES
		('tool', 'k-new', 'r', '{"observations":[{"id":"C"}]}'::bytea, 0), ('tool', 'k-new-bad', 'r', '\xff226f62736572766174696f6e7322'::bytea, 0)`)
	pgtest.Exec(t, dsn, `DELETE FROM journal WHERE key IN ('k-one', 'k-two')`)
	if got, want := links(), "k-new:C"; got != want {
		t.Fatalf("links after two results recorded and two deleted: %q, want %q", got, want)
	}
}
