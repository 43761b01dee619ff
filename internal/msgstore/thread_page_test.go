package msgstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestThreadsAfter: pages of ThreadsAfter, each after the last thread of
// the one before, give the threads of the resources asked (all when none)
// in Threads' order, once each, ids and resources in byte order also where
// the columns' collation is linguistic on Postgres; and each of its
// statements walks threads_by_order, reading about the rows it answers
// (not the 2,000 threads before a place deep in a resource), with no sort.
func TestThreadsAfter(t *testing.T) { forEachBackend(t, testThreadsAfter) }

func testThreadsAfter(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	b.Linguistic(t, conn, "threads.resource_id", "threads.id")
	// The threads in one transaction (fixtureTx): 2,000 commits waited
	// for the disk one by one.
	fx := fixtureTx(t, db)
	insert := func(id, resource string, created int) {
		t.Helper()
		if _, err := fx.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES (?, ?, ?, 0)`, id, resource, created); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range []string{"é", "a", "f", "B", "a", "é", "B"} {
		for j, id := range []string{"z", "A", "é", "b"} {
			insert(fmt.Sprintf("%s%d-%s", r, i, id), r, j%2)
		}
	}
	for i := range 2000 {
		insert(fmt.Sprintf("n%04d", i), "r", i%7)
	}
	fx.commit(t)
	all, err := s.Threads(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range [][]string{nil, {"é", "B", "r"}, {"a"}, {"f", "f", "zz"}} {
		var want []string
		for _, th := range all {
			if len(res) == 0 || slices.Contains(res, th.ResourceID) {
				want = append(want, th.ID)
			}
		}
		for _, limit := range []int{3, 500} {
			var got []string
			var after *msgstore.ThreadKey
			for page := 0; page <= len(want); page++ {
				ts, err := s.ThreadsAfter(ctx, res, after, limit)
				if err != nil {
					t.Fatal(err)
				}
				for _, th := range ts {
					got = append(got, th.ID)
				}
				if len(ts) < limit {
					break
				}
				k := ts[len(ts)-1].Key()
				after = &k
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q by %d: %d threads, want %d in Threads' order (first %q)", res, limit, len(got), len(want), got[:min(len(got), 6)])
			}
		}
	}
	deep := msgstore.ThreadKey{ResourceID: "r", CreatedAt: 6, ID: "n1000"}
	for _, res := range [][]string{nil, {"é", "B", "r", "s"}} {
		sqls, args := s.ThreadsAfterQueries(res, &deep)
		for i, q := range sqls {
			checkIndexWalk(t, b, db, q+" LIMIT ?", append(args[i], 10))
		}
	}
	sqls, args := s.ThreadsAfterQueries([]string{"a", "B"}, nil)
	checkIndexWalk(t, b, db, sqls[0]+" LIMIT ?", append(args[0], 10))
}

// checkIndexWalk fails t unless q reads threads in threads_by_order's
// order without sorting them: on SQLite its plan searches the index and
// uses no temporary b-tree; on Postgres its plan is an index scan of it
// with no Sort, reading at most 30 rows for its LIMIT 10.
func checkIndexWalk(t *testing.T, b backend, db *sql.DB, q string, args []any) {
	t.Helper()
	q = b.Dialect.Rebind(q)
	text := b.Plan(t, db, q, args...)
	if !strings.Contains(text, "threads_by_order") || strings.Contains(text, "TEMP B-TREE") || strings.Contains(text, "Sort") || strings.Contains(text, "SCAN threads") {
		t.Errorf("the plan does not walk threads_by_order: %s", text)
	}
	if b.Dialect == store.Postgres {
		if n := pgRowsRead(t, db, q, args...); n > 30 {
			t.Errorf("%d rows read for a page of 10: %s", n, q)
		}
	}
}
