package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestExpirePrunesIdleThreadsRuns: with Retention.MaxAge, Expire (and so
// mnemo serve's sweep) deletes the memctx records older than MaxAge of a
// thread that never loads a context again, whose records LoadContext's
// own pruning never reached (walk35: thread x kept its 3 records, query
// text included, 3h past a MaxAge of 1h). A dry run counts them and
// deletes nothing; ResourceID limits it to that resource's runs; a young
// record stays; the run ids stay claimed.
func TestExpirePrunesIdleThreadsRuns(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := newFakeClock()
		e := be.MustOpen(t, engine.Config{Now: clock.Now, Retention: journal.Retention{MaxAge: time.Hour}})
		load := func(run, thread, resource string) {
			t.Helper()
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: resource, Query: "the secret plan"}); err != nil {
				t.Fatal(err)
			}
		}
		say(t, e, "ana", "x", "the secret plan is at dawn")
		say(t, e, "ana", "y", "hello")
		say(t, e, "bob", "z", "hello")
		for i := range 3 {
			load(fmt.Sprint("x", i), "x", "ana")
		}
		load("y0", "y", "ana")
		load("z0", "z", "bob")
		clock.Add(3 * time.Hour)
		load("y1", "y", "ana") // prunes y0 itself (LoadContext's own pruning)

		res, err := e.Expire(ctx, engine.ExpireRequest{DryRun: true})
		if err != nil || res.PrunedRuns != 4 {
			t.Fatalf("dry run: %+v, %v; want 4 records (x0-x2, z0) to prune", res, err)
		}
		if got := runsOf(t, e, ""); len(got) != 5 {
			t.Fatalf("the dry run deleted: runs %q", got)
		}
		res, err = e.Expire(ctx, engine.ExpireRequest{ResourceID: "ana"})
		if err != nil || res.PrunedRuns != 3 || len(res.Threads) != 0 {
			t.Fatalf("expire ana: %+v, %v; want 3 records pruned, no thread expired", res, err)
		}
		if got := runsOf(t, e, ""); !slices.Equal(got, []string{"y1", "z0"}) {
			t.Fatalf("after expire of ana: runs %q, want [y1 z0]", got)
		}
		res, err = e.Expire(ctx, engine.ExpireRequest{})
		if err != nil || res.PrunedRuns != 1 {
			t.Fatalf("expire: %+v, %v; want 1 record pruned", res, err)
		}
		if got := runsOf(t, e, ""); !slices.Equal(got, []string{"y1"}) {
			t.Fatalf("after expire: runs %q, want [y1]", got)
		}
		// The pruned runs stay x's: another thread cannot take one over.
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "x0", ThreadID: "y", ResourceID: "ana"}); err == nil {
			t.Fatal("a pruned run id was taken by another thread")
		}
	})
}

// runsOf lists the run ids with a memctx record, of thread (every one
// when ""), newest first.
func runsOf(t *testing.T, e *engine.Engine, thread string) []string {
	t.Helper()
	runs, err := e.Journal().ListRuns(context.Background(), journal.RunFilter{ThreadID: thread, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	return ids
}
