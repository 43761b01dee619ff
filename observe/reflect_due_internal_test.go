package observe

import (
	"context"
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
		if b.Dialect == store.Postgres {
			if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
				t.Fatal(err)
			}
		}
		plan := b.Plan(t, conn, reflectDueQuery(b.Dialect), "t")
		if !strings.Contains(plan, "observations_by_thread") || strings.Contains(plan, "SCAN observations") || strings.Contains(plan, "Seq Scan") {
			t.Errorf("ReflectDue's query does not seek observations_by_thread: %s", plan)
		}
	})
}
