package observe_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

// BenchmarkPostgresList measures List's whole listing on Postgres, where
// it orders ids COLLATE "C" that no index of the schema serves: n
// observations of one resource over n/50 threads (resource: Filter
// {ResourceID, All}) and n of one thread (thread), inserted with SQL and
// analysed, each as the schema has it (sorted) and with the index a
// migration would add for the order (indexed: the resource's listing
// order after resource_id, the thread's after thread_id), created by the
// benchmark. BENCHMARKS.md ("Postgres: byte-order listings without an
// index") has the figures and why no migration adds it. It skips without
// MNEMO_TEST_POSTGRES.
//
//	MNEMO_TEST_POSTGRES=DSN go test ./observe/ -run '^$' -bench PostgresList -benchtime 10x
func BenchmarkPostgresList(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) { benchList(b, n) })
	}
}

func benchList(b *testing.B, n int) {
	ctx := context.Background()
	dsn := pgtest.DSN(b)
	db, err := pgstore.OpenDB(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer store.CloseDB(db)
	content := "- the user said something worth keeping, and the observer wrote it down in a line"
	pgtest.Exec(b, dsn, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
		SELECT lpad(to_hex(i), 26, '0'), 't' || (i % ($1 / 50)), 'big', i, i, 'observation', $2, i FROM generate_series(1, $1) i`, n, content)
	pgtest.Exec(b, dsn, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
		SELECT 'x' || lpad(to_hex(i), 25, '0'), 'long', 'small', i, i, 'observation', $2, i FROM generate_series(1, $1) i`, n, content)
	pgtest.Exec(b, dsn, `ANALYZE observations`)
	filters := []struct {
		name string
		f    observe.Filter
	}{{"resource", observe.Filter{ResourceID: "big", All: true}}, {"thread", observe.Filter{ThreadID: "long", All: true}}}
	run := func(name string) {
		for _, f := range filters {
			b.Run(f.name+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if obs, err := observe.List(ctx, db, f.f); err != nil || len(obs) != n {
						b.Fatalf("List = %d observations, %v; want %d", len(obs), err, n)
					}
				}
			})
		}
	}
	run("sorted")
	pgtest.Exec(b, dsn, `CREATE INDEX bench_resource_order ON observations(resource_id, thread_id COLLATE "C", from_seq, level, created_at, id COLLATE "C")`)
	pgtest.Exec(b, dsn, `CREATE INDEX bench_thread_order ON observations(thread_id, from_seq, level, created_at, id COLLATE "C")`)
	pgtest.Exec(b, dsn, `ANALYZE observations`)
	run("indexed")
}
