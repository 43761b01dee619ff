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

// TestReflectDueRule: reflectDue's table (ReflectThreshold 100, so
// reflectGrowth 25). A reflection holding about the threshold makes the
// reflector due again only once 25 tokens of observations are fresh.
func TestReflectDueRule(t *testing.T) {
	o := &Observer{cfg: Config{ReflectThreshold: 100}}
	for _, c := range []struct {
		name            string
		n, total, fresh int64
		want            bool
	}{
		{"no reflection, below the threshold", 5, 99, 99, false},
		{"no reflection, at the threshold", 5, 100, 100, true},
		{"one observation", 1, 500, 500, false},
		{"a small reflection: the threshold decides", 3, 100, 76, true},
		{"an uncondensed reflection and one new observation", 2, 130, 10, false},
		{"an uncondensed reflection and growth less one", 4, 130, 24, false},
		{"an uncondensed reflection and the growth", 4, 130, 25, true},
	} {
		if got := o.reflectDue(c.n, c.total, c.fresh); got != c.want {
			t.Errorf("%s: reflectDue(%d, %d, %d) = %v, want %v", c.name, c.n, c.total, c.fresh, got, c.want)
		}
	}
}
