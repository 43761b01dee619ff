package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
)

// TestReflectDueSeeksThread: ReflectDue's query, asked of every thread by
// the engine's backlog walk at each start, seeks the thread's range of
// observations_by_thread instead of scanning observations. Postgres with
// enable_seqscan off: on the test's near-empty table the planner would
// scan it whatever the indexes.
func TestReflectDueSeeksThread(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		db := b.OpenDB(t, b.Place(t))
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		if b.Dialect == store.Postgres {
			explain = "EXPLAIN "
			if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
				t.Fatal(err)
			}
		}
		plan := planText(t, conn, explain+b.Dialect.Rebind(reflectDueQuery(b.Dialect)), "t")
		t.Logf("plan: %s", plan)
		if !strings.Contains(plan, "observations_by_thread") || strings.Contains(plan, "SCAN observations") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("ReflectDue's query does not seek observations_by_thread: %s", plan)
		}
	})
}

// planText runs an EXPLAIN on conn and joins the last column of its rows.
func planText(t *testing.T, conn *sql.Conn, q string, args ...any) string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
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
	return strings.Join(plan, "; ")
}
