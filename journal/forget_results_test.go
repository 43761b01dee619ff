package journal_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/tools"
)

// recordedResults are tool results as an application may record them:
// recallObservations results (the ids of the "observations" objects
// listed) and others that name an id without listing it so.
var recordedResults = []struct {
	name, out string
}{
	{"two ids", `{"ok":true,"observations":[{"id":"obs-A","threadId":"t","text":"a"},{"id":"obs-B","threadId":"t","text":"b"}]}`},
	{"the other id", `{"ok":true,"observations":[{"id":"obs-B","text":"b"}]}`},
	{"one id twice", `{"ok":true,"observations":[{"id":"obs-A"},{"id":"obs-A"}]}`},
	{"escaped text", `{"ok":true,"observations":[{"id":"obs-A","text":"\u003cb\u003e \"quoted\" \u2028"}]}`},
	{"none found", `{"ok":true,"observations":[]}`},
	{"failure", `{"ok":false,"error":"query is empty; give a few keywords"}`},
	{"not JSON", `"observations":[{"id":"obs-A"}]`},
	{"truncated", `{"ok":true,"observations":[{"id":"obs-A"}`},
	{"an object, not an array", `{"observations":{"id":"obs-A"}}`},
	{"strings, not objects", `{"observations":["obs-A"]}`},
	{"a numeric id", `{"observations":[{"id":7}]}`},
	{"an array at the top", `[{"observations":[{"id":"obs-A"}]}]`},
	{"the id in another tool's text", `{"ok":true,"text":"observations obs-A"}`},
	{"empty", ``},
}

// TestForgetToolResults: the schema links each recorded tool result to the
// observation ids it lists, the ids tools.RecalledObservationIDs reads from
// it (none from a result that is not such JSON, whatever text it holds),
// and ForgetToolResults deletes the results of the resource that list an
// invalidated id, with their links, by those links: the result listing
// obs-A and obs-B goes when obs-A is invalidated, the one listing only
// obs-B stays, and so does another resource's result listing obs-A.
func TestForgetToolResults(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		key := func(res, name string) journal.ToolKey {
			return journal.ToolKey{RunID: "run-" + res, ThreadID: "t-" + res, ResourceID: res, CallID: name}
		}
		for _, res := range []string{"r1", "r2"} {
			for _, r := range recordedResults {
				if _, err := j.Apply(ctx, key(res, r.name), func(context.Context) ([]byte, error) { return []byte(r.out), nil }); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, r := range recordedResults {
			want := tools.RecalledObservationIDs([]byte(r.out))
			slices.Sort(want)
			want = slices.Compact(want)
			if got := linkedIDs(t, db, key("r1", r.name).String()); !slices.Equal(got, want) {
				t.Errorf("%s: linked %q, want %q (tools.RecalledObservationIDs)", r.name, got, want)
			}
		}
		var n int
		inTx(t, db, func(tx *store.Tx) error {
			var err error
			n, err = journal.ForgetToolResults(ctx, tx, "r1", []string{"obs-A", "obs-X"})
			return err
		})
		if n != 3 {
			t.Errorf("ForgetToolResults deleted %d results, want 3", n)
		}
		for _, res := range []string{"r1", "r2"} {
			for _, r := range recordedResults {
				k := key(res, r.name)
				_, err := j.Recorded(ctx, journal.ScopeTool, k.String())
				kept := !errors.Is(err, journal.ErrNotFound)
				if wantKept := res == "r2" || !slices.Contains(tools.RecalledObservationIDs([]byte(r.out)), "obs-A"); kept != wantKept || err != nil && kept {
					t.Errorf("%s of %s after forgetting obs-A: kept=%v (%v), want %v", r.name, res, kept, err, wantKept)
				}
				if links := linkedIDs(t, db, k.String()); !kept && len(links) > 0 {
					t.Errorf("%s of %s deleted, its links %q stay", r.name, res, links)
				}
			}
		}
	})
}

// linkedIDs returns the observation ids journal_tool_obs links to the tool
// result under key, sorted.
func linkedIDs(t *testing.T, db *sql.DB, key string) []string {
	t.Helper()
	rows, err := store.Bound(db).QueryContext(context.Background(),
		`SELECT obs_id FROM journal_tool_obs WHERE scope = ? AND key = ? ORDER BY obs_id`, journal.ScopeTool, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
