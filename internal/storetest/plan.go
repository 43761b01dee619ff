package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Plan returns the plan b's database gives query (written with ?
// placeholders or already in b's dialect: it is rebound) run with args on
// conn: on SQLite the detail column of EXPLAIN QUERY PLAN ("SEARCH t USING
// INDEX i (a=?)"), on Postgres the lines of EXPLAIN ("Index Scan using i
// on t"), joined by "; ". It logs the statement and its plan; a statement
// that fails, fails t. Tests pin a listing's plan with it: a byte-order
// range must read an index, not sort the table.
func (b Backend) Plan(t testing.TB, conn store.Conn, query string, args ...any) string {
	t.Helper()
	query = b.Dialect.Rebind(query)
	rows, err := conn.QueryContext(context.Background(), "EXPLAIN "+b.Dialect.Text("QUERY PLAN ", "")+query, args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "; ")
	t.Logf("%s\n  plan: %s", query, text)
	return text
}
