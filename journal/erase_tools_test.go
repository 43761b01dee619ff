package journal_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestForgetRunTools: ForgetRunTools deletes every tool application of
// the erased runs, as Apply keys them (the JSON array journal.ToolKey
// writes), and keeps every other run's: one whose id the erased one
// begins (run-1 and run-10), ids with the wildcards of LIKE (% and _),
// with ':' (the "<run>:" prefix of the keys before SQLite migration 3),
// with the JSON string's quote and backslash, and with a non-ASCII
// letter. On Postgres the key column gets a linguistic collation first,
// in which '-' sorts before ',' (a range in the column's own collation
// would be empty). Before: the statement compared substr(key, 1, n) with
// "<run>:", which no Apply key begins with, and deleted nothing.
func TestForgetRunTools(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		b.Linguistic(t, db, "journal.key")
		erased := []string{"run-1", "run%", "run_1", "run:1", `run"1`, `run\1`, "rün-1"}
		kept := []string{"run-10", "run-1:", "run-1-", "run-", "run", "run%1", "runx1", "run_", "run:10", `run"10`, `run\\1`, "rün-10", "run-2"}
		for _, run := range append(append([]string{}, erased...), kept...) {
			for _, call := range []string{"call-1", "call-2"} {
				k := journal.ToolKey{RunID: run, ThreadID: "t-" + run, ResourceID: "r1", CallID: call}
				if _, err := j.Apply(ctx, k, func(context.Context) ([]byte, error) { return []byte("applied"), nil }); err != nil {
					t.Fatal(err)
				}
			}
		}
		inTx(t, db, func(tx *store.Tx) error {
			for _, run := range erased {
				if err := journal.ForgetRunTools(ctx, tx, run); err != nil {
					return err
				}
			}
			return nil
		})
		for _, c := range []struct {
			runs []string
			kept bool
		}{{erased, false}, {kept, true}} {
			for _, run := range c.runs {
				for _, call := range []string{"call-1", "call-2"} {
					k := journal.ToolKey{RunID: run, ThreadID: "t-" + run, ResourceID: "r1", CallID: call}
					_, err := j.Recorded(ctx, journal.ScopeTool, k.String())
					if got := !errors.Is(err, journal.ErrNotFound); got != c.kept || err != nil && got {
						t.Errorf("run %q, %s after ForgetRunTools: kept=%v (%v), want kept=%v", run, call, got, err, c.kept)
					}
				}
			}
		}
	})
}

// TestForgetRunToolsPlan: ForgetRunTools' delete reads a byte-order range
// of an index, not every tool application: on SQLite the primary key's
// (scope=? AND key>? AND key<?), on Postgres journal_tool_key_bytes
// (migration 10). Before: SEARCH … (scope=?) on SQLite, Seq Scan on
// journal on Postgres, for every erased run.
func TestForgetRunToolsPlan(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		_, db := b.openErase(t)
		b.Linguistic(t, db, "journal.key")
		var rows []string
		for i := range 3000 {
			rows = append(rows, fmt.Sprintf(`('tool', '["run-%d","t-%d","r-%d","call-1"]', 't-%d', 'r-%d', %s, 1)`,
				i, i%100, i%10, i%100, i%10, b.Dialect.Text(`x''`, `''::bytea`)))
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES `+strings.Join(rows, ", ")); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		q, args := journal.ForgetRunToolsSQL(b.Dialect, "run-17")
		plan := b.Plan(t, db, q, args...)
		want := b.Dialect.Text("(scope=? AND key>? AND key<?)", "journal_tool_key_bytes")
		if !strings.Contains(plan, want) || strings.Contains(plan, "Seq Scan") {
			t.Errorf("ForgetRunTools reads every tool application: %s; want %s", plan, want)
		}
	})
}
