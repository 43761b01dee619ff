package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// BenchmarkErasureJournal times the erasure and expiry paths of one small
// owner in a store whose journal holds many other runs (runs memctx
// records of 100 stored threads, inserted in bulk, and a run on a thread
// id with no stored thread): their cost should follow what they erase,
// not the journal. expire: Expire with nothing due; unknown: DeleteThread
// of an id with neither a thread nor a run (ErrThreadNotFound);
// thread: DeleteThread of a thread of two messages and one run; resource:
// DeleteResource of a resource with such a thread. On SQLite thread and
// resource include the purge (index rebuild, residue search of the file),
// which reads the whole file by design.
//
//	go test ./engine/ -run '^$' -bench ErasureJournal -benchtime 20x
func BenchmarkErasureJournal(b *testing.B) {
	for _, be := range enginetest.Backends {
		for _, runs := range []int{1_000, 200_000} {
			b.Run(fmt.Sprintf("%s/runs-%d", be.Name, runs), func(b *testing.B) {
				e := openBulkJournal(b, be, engine.Config{}, runs)
				for _, op := range erasureOps {
					b.Run(op.name, func(b *testing.B) {
						for i := 0; b.Loop(); i++ {
							b.StopTimer()
							id := op.setup(b, e, i)
							b.StartTimer()
							op.run(b, e, id)
						}
					})
				}
			})
		}
	}
}

// erasureOps are the timed operations of BenchmarkErasureJournal: setup
// (not timed) returns the id run erases.
var erasureOps = []struct {
	name  string
	setup func(b *testing.B, e *engine.Engine, i int) string
	run   func(b *testing.B, e *engine.Engine, id string)
}{
	{"expire", func(*testing.B, *engine.Engine, int) string { return "" }, func(b *testing.B, e *engine.Engine, _ string) {
		if res, err := e.Expire(context.Background(), engine.ExpireRequest{}); err != nil || len(res.Threads) != 0 {
			b.Fatalf("Expire: %+v, %v; want nothing due", res, err)
		}
	}},
	{"unknown", func(*testing.B, *engine.Engine, int) string { return "no-such-thread-id" }, func(b *testing.B, e *engine.Engine, id string) {
		if _, err := e.DeleteThread(context.Background(), id); !errors.Is(err, engine.ErrThreadNotFound) {
			b.Fatalf("DeleteThread(%s): %v, want ErrThreadNotFound", id, err)
		}
	}},
	{"thread", func(b *testing.B, e *engine.Engine, i int) string {
		return smallOwner(b, e, i, "small-resource-x").thread
	}, func(b *testing.B, e *engine.Engine, id string) {
		if _, err := e.DeleteThread(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}},
	{"resource", func(b *testing.B, e *engine.Engine, i int) string {
		return smallOwner(b, e, i, fmt.Sprintf("small-resource-%06d", i)).resource
	}, func(b *testing.B, e *engine.Engine, id string) {
		if _, err := e.DeleteResource(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}},
}

type owner struct{ thread, resource string }

// smallOwner stores a thread of resource with two messages and one run,
// its ids of 12 bytes or more (so the erasure checks the run ids for
// them).
func smallOwner(b *testing.B, e *engine.Engine, i int, resource string) owner {
	ctx := context.Background()
	o := owner{fmt.Sprintf("small-thread-%06d", i), resource}
	msgs := []engine.Message{{Role: "user", Content: "the parcel goes to the depot " + o.thread}, {Role: "assistant", Content: "noted"}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: o.thread, ResourceID: o.resource, Messages: msgs}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: o.thread + "-run", ThreadID: o.thread, ResourceID: o.resource, Query: "parcel"}); err != nil {
		b.Fatal(err)
	}
	return o
}

// openBulkJournal opens an engine on be with 100 stored threads (of 10
// resources), one memctx record of a LoadContext on each, runs-100 more
// copies of those records under new run ids (the journal's and the run
// owners' rows, in bulk), and one run on a thread id with no stored
// thread. Its clock stands still, an hour after the records. On Postgres
// the tables are analyzed after the bulk inserts.
func openBulkJournal(b testing.TB, be enginetest.Backend, cfg engine.Config, runs int) *engine.Engine {
	ctx := context.Background()
	cfg.Now = func() time.Time { return time.Unix(1_700_000_000, 0) }
	cfg.Lifecycle.IdleTTL = 24 * time.Hour
	e := be.MustOpen(b, cfg)
	for t := 0; t < 100; t++ {
		thread, resource := fmt.Sprintf("bulk-thread-%d", t), fmt.Sprintf("bulk-resource-%d", t%10)
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: resource,
			Messages: []engine.Message{{Role: "user", Content: "a turn of " + thread}}}); err != nil {
			b.Fatal(err)
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: thread + "-run", ThreadID: thread, ResourceID: resource, Query: "turn"}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "ghost-run", ThreadID: "ghost-thread", ResourceID: "bulk-resource-0", Query: "first turn"}); err != nil {
		b.Fatal(err)
	}
	seq := `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)`
	if be.Name == "postgres" {
		seq = `WITH n(i) AS (SELECT generate_series(0, $1::bigint - 1))`
	}
	db := engine.DBOf(e)
	for _, q := range []string{
		seq + ` INSERT INTO journal (scope, key, thread_id, resource_id, output, input_hash, created_at)
			SELECT j.scope, 'bulk-' || n.i || ':memctx', j.thread_id, j.resource_id, j.output, '', j.created_at - n.i
			FROM n JOIN journal j ON j.scope = 'memctx' AND j.key = 'bulk-thread-' || (n.i % 100) || '-run:memctx'`,
		seq + ` INSERT INTO runs (id, thread_id, resource_id, created_at)
			SELECT 'bulk-' || n.i, r.thread_id, r.resource_id, r.created_at - n.i
			FROM n JOIN runs r ON r.id = 'bulk-thread-' || (n.i % 100) || '-run'`,
	} {
		if _, err := db.ExecContext(ctx, q, runs-100); err != nil {
			b.Fatal(err)
		}
	}
	if be.Name == "postgres" {
		// The statistics autovacuum gathers on a live store: without
		// them Postgres planned Expire's walk as seeks it would not
		// choose once it has them (pg62).
		if _, err := db.ExecContext(ctx, `ANALYZE journal, runs, threads`); err != nil {
			b.Fatal(err)
		}
	}
	return e
}
