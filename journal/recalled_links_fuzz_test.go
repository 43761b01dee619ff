package journal_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/tools"
)

// recalledSeeds are results on which the schema's SQL and
// tools.RecalledObservationIDs read ids differently before migration 18
// (SQLite) and 16 (Postgres), with recordedResults: keys of another case,
// duplicate keys, ids that are not strings or not ASCII, escapes, a NUL
// byte, bytes that are not UTF-8, deep nesting.
var recalledSeeds = []string{
	`{"observations":[{"ID":"A"},{"Id":"B"},{"id":"C"}]}`,
	`{"Observations":[{"id":"A"}],"observations":[{"id":"B"}]}`,
	`{"observations":[{"id":"A"}],"observations":[{"id":"B"}]}`,
	`{"observations":[{"id":"A","id":"B"}]}`,
	`{"observations":[{"id":"7"},{"id":7},{"id":"A","fromSeq":"x"}]}`,
	`{"observations":[null,{"id":"A"},"B",[{"id":"C"}]]}`,
	`{"observations":[{"id":"A\u0000"},{"id":"B"}]}`,
	`{"observations":[{"id":"\ud800"},{"id":"\u0041\u002d1"},{"id":"a\\u0000"}]}`,
	`{"observ\u0061tions":[{"\u0069d":"A"}],"x":"observations"}`,
	"{\"observations\":[{\"id\":\"A\xff\"},{\"id\":\"B\"}],\"text\":\"\xc3\"}",
	"{\"observations\":[{\"id\":\"A\"}]}\x00",
	"{\"observations\":[{\"id\":\"\xc3\xa9\"},{\"id\":\" x~\"},{\"id\":\"\"}]}",
	`{"observations":[{"id":"A"}]} {"observations":[{"id":"B"}]}`,
	`{"observations":[{"id":"A"}],"deep":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
	`{"observations":[{"id":"A"}],"deep":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	`{"observations":[{"id":"A","n":1e999,"m":-0.0E+01}]}`,
	`{"observations":[{"id":"A","n":1e999,"id":"B"},{"x":{"y":[1e999]},"id":"C"}]}`,
	"{\"observations\":[{\"id\":\"A\"}],\"c\":\"\x7f\"}",
	"\ufeff{\"observations\":[{\"id\":\"A\"}]}",
}

// FuzzRecalledLinks: the links SQLite's trigger writes for a recorded
// tool result (journal_tool_obs), stored as a blob or as text, and those
// store.RecalledLinksSelect rebuilds are the ids
// tools.RecalledObservationIDs reads from it, whatever its bytes. Before
// migration 18 they differed on keys of another case, duplicate keys,
// ids with a NUL or bytes that are not UTF-8, and a NUL byte after the
// JSON (recalledSeeds).
func FuzzRecalledLinks(f *testing.F) {
	for _, r := range recordedResults {
		f.Add([]byte(r.out))
	}
	for _, s := range recalledSeeds {
		f.Add([]byte(s))
	}
	db, err := store.Open(f.Context(), filepath.Join(f.TempDir(), "mnemo.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	f.Fuzz(func(t *testing.T, out []byte) {
		want := tools.RecalledObservationIDs(out)
		slices.Sort(want)
		for _, v := range []any{out, string(out)} {
			if _, err := db.Exec(`INSERT INTO journal (scope, key, resource_id, output, created_at) VALUES ('tool', 'k', 'r', ?, 0)`, v); err != nil {
				t.Fatal(err)
			}
			got, rebuilt := recalledLinks(t, db)
			if !slices.Equal(got, want) || !slices.Equal(rebuilt, want) {
				t.Fatalf("%T %q: the trigger linked %q, the rebuild %q; tools.RecalledObservationIDs reads %q", v, out, got, rebuilt, want)
			}
		}
	})
}

// recalledLinks returns the ids linked to the one result recorded under
// key k, by the trigger (got) and by store.RecalledLinksSelect (rebuilt),
// and deletes it.
func recalledLinks(t *testing.T, db *sql.DB) (got, rebuilt []string) {
	t.Helper()
	defer func() {
		if _, err := db.Exec(`DELETE FROM journal WHERE key = 'k'`); err != nil {
			t.Fatal(err)
		}
	}()
	got = queryIDs(t, db, `SELECT obs_id FROM journal_tool_obs WHERE key = 'k' ORDER BY obs_id`)
	rebuilt = queryIDs(t, db, `SELECT DISTINCT obs_id FROM (`+store.RecalledLinksSelect+`) ORDER BY 1`)
	return got, rebuilt
}

func queryIDs(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// TestRecalledLinksAgree: on both backends, the links the schema writes
// for a result the journal records are the ids
// tools.RecalledObservationIDs reads from it, for every seed of
// FuzzRecalledLinks (on Postgres, recalled_obs_ids of migration 16: before
// it, a \u0000 anywhere in a result, duplicate keys, bytes that are not
// UTF-8 and non-ASCII ids read otherwise).
func TestRecalledLinksAgree(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		j, db := b.openErase(t)
		for i, s := range append(slices.Clone(recalledSeeds), `{"observations":[{"id":"A","text":"x\u0000y"}]}`) {
			k := journal.ToolKey{RunID: "run", ThreadID: "t", ResourceID: "r", CallID: strconv.Itoa(i)}
			if _, err := j.Apply(ctx, k, func(context.Context) ([]byte, error) { return []byte(s), nil }); err != nil {
				t.Fatal(err)
			}
			want := tools.RecalledObservationIDs([]byte(s))
			slices.Sort(want)
			if got := linkedIDs(t, db, k.String()); !slices.Equal(got, want) {
				t.Errorf("%q: linked %q, want %q (tools.RecalledObservationIDs)", s, got, want)
			}
		}
	})
}
