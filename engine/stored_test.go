package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// storedCopies returns where e's store still holds tok, for the erasure
// tests: on SQLite the files of the data directory whose bytes contain it
// (database, WAL, index segments: secure_delete and the index purge make
// erasure physical there); on Postgres the columns of the schema's tables
// with a live row containing it. Postgres cannot promise more: a deleted
// row's bytes stay in its page (dead tuple) until VACUUM reuses the space,
// and in WAL and backups (docs/postgres.md).
func storedCopies(t *testing.T, be enginetest.Backend, e *engine.Engine, tok string) []string {
	t.Helper()
	if be.Name != enginetest.Postgres.Name {
		return filesContaining(t, e.Dir(), tok)
	}
	return rowsContaining(t, e, tok)
}

// rowsContaining returns "table.column" for every column of the current
// schema's tables with a row holding tok: text (and every other type but
// bytea) through its text form, bytea through its bytes.
func rowsContaining(t *testing.T, e *engine.Engine, tok string) []string {
	t.Helper()
	ctx := context.Background()
	conn := engine.ConnOf(e)
	rows, err := conn.QueryContext(ctx, `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	type column struct{ table, name, typ string }
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(cols) == 0 {
		t.Fatal("rowsContaining: the current schema has no tables")
	}
	// One statement a table (17 round trips instead of 115): a count of the
	// matching rows for each of its columns.
	byTable := map[string][]column{}
	var tables []string
	for _, c := range cols {
		if byTable[c.table] == nil {
			tables = append(tables, c.table)
		}
		byTable[c.table] = append(byTable[c.table], c)
	}
	var hits []string
	for _, table := range tables {
		tcols := byTable[table]
		counts := make([]string, len(tcols))
		args := make([]any, len(tcols))
		dest := make([]any, len(tcols))
		ns := make([]int, len(tcols))
		for i, c := range tcols {
			match := fmt.Sprintf(`CAST(%q AS TEXT) LIKE '%%' || ? || '%%'`, c.name)
			if c.typ == "bytea" {
				match = fmt.Sprintf(`position(convert_to(?, 'UTF8') IN %q) > 0`, c.name)
			}
			counts[i] = "COUNT(*) FILTER (WHERE " + match + ")"
			args[i], dest[i] = tok, &ns[i]
		}
		q := fmt.Sprintf(`SELECT %s FROM %q`, strings.Join(counts, ", "), table)
		if err := conn.QueryRowContext(ctx, q, args...).Scan(dest...); err != nil {
			t.Fatalf("rowsContaining: %s: %v", table, err)
		}
		for i, c := range tcols {
			if ns[i] > 0 {
				hits = append(hits, fmt.Sprintf("%s.%s (%d rows)", c.table, c.name, ns[i]))
			}
		}
	}
	return hits
}
