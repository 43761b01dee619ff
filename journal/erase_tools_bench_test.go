package journal_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// BenchmarkDeleteResourceRuns times the journal's part of a resource
// erasure, DeleteResourceRuns (one ForgetRunTools a run), for a resource
// of 200 runs with two tool applications each, in a journal holding tools
// tool applications in all (the others of 100 threads of 10 other
// resources, inserted in bulk). Each iteration runs in a transaction it
// rolls back. Its cost should follow the erased runs, not the journal.
//
//	go test ./journal/ -run '^$' -bench DeleteResourceRuns -benchtime 5x
func BenchmarkDeleteResourceRuns(b *testing.B) {
	const runs = 200
	for _, be := range []struct {
		name string
		open func(b *testing.B) *sql.DB
	}{
		{"sqlite", func(b *testing.B) *sql.DB { return benchDB(b, store.Open, filepath.Join(b.TempDir(), "mnemo.db")) }},
		{"postgres", func(b *testing.B) *sql.DB { return benchDB(b, pgstore.OpenDB, pgtest.DSN(b)) }},
	} {
		for _, tools := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/tools-%d", be.name, tools), func(b *testing.B) {
				db := be.open(b)
				fillTools(b, db, runs, tools)
				ctx := context.Background()
				for b.Loop() {
					tx, err := store.Begin(ctx, db, nil)
					if err != nil {
						b.Fatal(err)
					}
					n, err := journal.DeleteResourceRuns(ctx, tx, "victim")
					tx.Rollback()
					if err != nil || n != runs {
						b.Fatalf("DeleteResourceRuns = %d, %v; want %d", n, err, runs)
					}
				}
			})
		}
	}
}

// benchDB opens the database at place with open, closed when b ends.
func benchDB(b *testing.B, open func(context.Context, string) (*sql.DB, error), place string) *sql.DB {
	db, err := open(context.Background(), place)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.CloseDB(db) })
	return db
}

// fillTools inserts in db runs memctx records of resource "victim" (runs
// victim-run-0… on thread victim-thread) with two tool applications each,
// keyed as journal.ToolKey keys them, and tools-2×runs tool applications
// of 100 threads of 10 other resources.
func fillTools(b *testing.B, db *sql.DB, runs, tools int) {
	d := store.DialectOfConn(db)
	seq := d.Text(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)`,
		`WITH n(i) AS (SELECT generate_series(0, $1::bigint - 1))`)
	empty := d.Text(`x''`, `''::bytea`)
	for _, s := range []struct {
		q string
		n int
	}{
		{seq + ` INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at)
			SELECT 'memctx', 'victim-run-' || n.i || ':memctx', 'victim-thread', 'victim', ` + empty + `, 1 FROM n`, runs},
		{seq + ` INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at)
			SELECT 'tool', '["victim-run-' || (n.i / 2) || '","victim-thread","victim","call-' || (n.i % 2) || '"]',
			'victim-thread', 'victim', ` + empty + `, 1 FROM n`, 2 * runs},
		{seq + ` INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at)
			SELECT 'tool', '["other-run-' || (n.i / 4) || '","other-thread-' || (n.i % 100) || '","other-' || (n.i % 10) || '","call-' || (n.i % 4) || '"]',
			'other-thread-' || (n.i % 100), 'other-' || (n.i % 10), ` + empty + `, 1 FROM n`, tools - 2*runs},
	} {
		if _, err := db.ExecContext(context.Background(), d.Rebind(s.q), s.n); err != nil {
			b.Fatal(err)
		}
	}
	if d == store.Postgres {
		if _, err := db.ExecContext(context.Background(), `ANALYZE journal`); err != nil {
			b.Fatal(err)
		}
	}
}
