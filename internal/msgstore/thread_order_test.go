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

// TestThreadsInOrder: ThreadsInOrder gives the threads asked for in
// Threads' order (creation time, then id bytewise, also where the
// columns' collation is linguistic on Postgres: ties a < B there), once
// each, leaving out unknown ids and another resource's threads; and its
// statement reads the rows asked for, not the resource's 2,000 others.
func TestThreadsInOrder(t *testing.T) { forEachBackend(t, testThreadsInOrder) }

func testThreadsInOrder(t *testing.T, b backend) {
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
	for i, id := range []string{"é", "a", "f", "B", "z", "A", "0"} {
		insert(id, "r", []int{5, 5, 5, 5, 3, 9, 9}[i])
	}
	insert("x", "other", 1)
	for i := range 2000 {
		insert(fmt.Sprintf("n%04d", i), "r", i%11)
	}
	fx.commit(t)
	asked := []string{"f", "x", "é", "nope", "a", "B", "z", "A", "n0007", "f", "0"}
	all, err := s.Threads(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, th := range all {
		if slices.Contains(asked, th.ID) {
			want = append(want, th.ID)
		}
	}
	got, err := s.ThreadsInOrder(ctx, "r", asked)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || strings.Join(got, " ") != "z B a f é n0007 0 A" {
		t.Errorf("ThreadsInOrder: %q, want %q (Threads' order)", got, want)
	}
	if got, err := s.ThreadsInOrder(ctx, "r", nil); got != nil || err != nil {
		t.Errorf("ThreadsInOrder of no ids: %q, %v", got, err)
	}
	read := threadRowsRead(t, b, db, s, asked)
	t.Logf("ThreadsInOrder read %d rows of threads for %d ids", read, len(asked))
	if read > len(asked) {
		t.Errorf("ThreadsInOrder read %d rows of threads for %d ids", read, len(asked))
	}
}

// threadRowsRead returns how many rows of threads ThreadsInOrder's
// statement reads for ids: on Postgres the rows it fetched (pgRowsRead);
// on SQLite the plan must look them up by id (EXPLAIN QUERY PLAN), which
// reads at most one row an id, and it returns len(ids) then.
func threadRowsRead(t *testing.T, b backend, db *sql.DB, s *msgstore.Store, ids []string) int {
	t.Helper()
	q, args, err := s.ThreadsInOrderQuery("r", ids)
	if err != nil {
		t.Fatal(err)
	}
	if b.Dialect == store.Postgres {
		// The measure counts: listing the resource reads its threads.
		if all := pgRowsRead(t, db, `SELECT id FROM threads WHERE resource_id = $1 ORDER BY created_at, id`, "r"); all < 2000 {
			t.Fatalf("listing the resource read %d rows: the count does not count", all)
		}
		return pgRowsRead(t, db, q, args...)
	}
	text := b.Plan(t, db, q, args...)
	if !strings.Contains(text, "SEARCH threads USING ") || !strings.Contains(text, "id=?)") || strings.Contains(text, "SCAN threads") {
		t.Fatalf("the plan does not look the threads up by id: %s", text)
	}
	return len(ids)
}

// pgRowsRead returns how many rows of threads q read on Postgres (after
// ANALYZE): the rows its transaction fetched (pg_stat_xact_user_tables).
func pgRowsRead(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `ANALYZE threads`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// The counts include the connection's earlier transactions whose
	// statistics are not reported yet: read them before and after.
	fetched := func() int {
		t.Helper()
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
			WHERE relname = 'threads' AND schemaname = current_schema()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := fetched()
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil || n == 0 {
		t.Fatalf("%d rows, %v", n, err)
	}
	return fetched() - before
}
