package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestErasureDrainReusedIDs: an erasure's purge drains the outbox's delete
// rows up to the newest it saw (LastDelete), then counts those left. On
// SQLite the outbox's ids are rowids without AUTOINCREMENT: once the drain
// deleted the newest rows, the delete rows another erasure commits take
// the same ids again, at or below that newest id, and the purge counted
// them as its own, failing with ErrEraseIncomplete "2 index removals
// deferred after failures" though none failed (seen once under load 30 in
// TestConcurrentErasuresComplete/sqlite, run58). Now only the rows that
// failed count; the other erasure applies and checks its rows. The other
// erasure's commit is made here, between the drain and the count, by
// inserting the two delete rows its transaction writes. SQLite only:
// Postgres's purge drains nothing (the rows' lexical entries go with them).
func TestErasureDrainReusedIDs(t *testing.T) {
	ctx := context.Background()
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	appendTo(t, e, "t1", "r", user("", "the lighthouse keeper rang at noon"), user("", "and again at dusk"))
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	conn := engine.ConnOf(e)
	var queued int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&queued); err != nil || queued != 0 {
		t.Fatalf("outbox before the erasure: %d rows, %v; want none", queued, err)
	}
	var reused []int64
	engine.SetAfterDeleteDrain(e, func() {
		engine.SetAfterDeleteDrain(e, nil)
		for _, m := range []string{"m-other-1", "m-other-2"} {
			var id int64
			if err := conn.QueryRowContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('delete', ?, 'r2', ?) RETURNING id`,
				m, time.Now().UnixMilli()).Scan(&id); err != nil {
				t.Error(err)
				return
			}
			reused = append(reused, id)
		}
	})
	if _, err := e.DeleteThread(ctx, "t1"); err != nil {
		t.Fatalf("DeleteThread(t1) with another erasure's rows committed during its purge: %v", err)
	}
	// The erasure's own two delete rows were ids 1 and 2 (the outbox was
	// empty); the other's took them again.
	if len(reused) != 2 || reused[0] != 1 || reused[1] != 2 {
		t.Errorf("the other erasure's rows got ids %v, want [1 2] (the drained rows' ids)", reused)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
}
