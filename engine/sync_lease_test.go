package engine_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresSyncDrainsLeaseEndedMidSync: on Postgres, SyncIndexes
// returns with no row pending when the lease of a row another drainer
// claimed (a process that died while embedding) ends between its drain
// and its count of the rows held: the outbox's clock (SetOutboxClock)
// passes the lease's end at that step (SetAfterSyncDrain), every run.
// The sync counts what is held at the time it read before its drain: the
// row is still held then, so it waits and drains it. Before a38328d5 it
// read the time after the drain, counted nothing held, and returned with
// the row neither drained nor counted (mnemo check: "1 outbox row still
// pending", exit 1; TestPostgresCheckSaysOutboxWait failed so in one run
// of three, a lease ending in the few milliseconds between the two).
// It skips without MNEMO_TEST_POSTGRES.
func TestPostgresSyncDrainsLeaseEndedMidSync(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	cfg := engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}}
	e := enginetest.MustOpen(t, cfg)
	appendTo(t, e, "t", "r", user("a", "the heron waits by the weir"), user("b", "and the otter does not"))
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	leaseEnd := start.Add(time.Hour)
	pgtest.Exec(t, dsn, `DELETE FROM embeddings WHERE message_id = 'a'`)
	pgtest.Exec(t, dsn, `INSERT INTO outbox (op, message_id, resource_id, attempts, not_before, created_at)
		VALUES ('embed', 'a', 'r', 0, $1, $2)`, leaseEnd.UnixMilli(), start.UnixMilli())

	cfg.KeepOutbox = true // no background drainer: the sync alone drains
	e = enginetest.MustOpen(t, cfg)
	var clock atomic.Pointer[time.Time]
	clock.Store(&start)
	engine.SetOutboxClock(e, func() time.Time { return *clock.Load() })
	engine.SetAfterSyncDrain(e, func() { clock.Store(&leaseEnd) })
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	var pending int
	if err := engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending != 0 {
		t.Fatalf("SyncIndexes returned with %d outbox row(s) pending; want the row whose lease ended during the sync drained", pending)
	}
	mustCheck(t, e)
}
