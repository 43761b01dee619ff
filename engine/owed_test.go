package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestOwedCountsQueuedEmbeddings: Owed counts the stored messages whose
// embedding is queued and not computed yet (the drainer held on them),
// on both backends, and nothing once the drainer caught up; an erased
// message's queued embedding is not owed. On SQLite an erasure whose
// purge was cut owes its removal from the index files (Erasures); on
// Postgres an erasure takes its index entries with its rows, so none is
// ever owed. Owed had tests on SQLite only (cmd/mnemo's signal test).
func TestOwedCountsQueuedEmbeddings(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &heldEmbedder{entered: make(chan struct{}, 1)}
		e, err := engine.Open(ctx, be.Config(t, engine.Config{Embedder: emb}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		owed := func(want engine.Owed, when string) {
			t.Helper()
			got, err := e.Owed(ctx)
			if err != nil || got != want {
				t.Errorf("%s: Owed = %+v, %v; want %+v", when, got, err, want)
			}
		}
		owed(engine.Owed{}, "nothing stored")
		appendTo(t, e, "t", "r", user("m1", "the parcel left the depot"))
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		owed(engine.Owed{}, "m1 embedded")
		release := holdEmbed(t, emb, "the refund was approved")
		appendTo(t, e, "t", "r", user("m2", "the refund was approved"), user("m3", "the courier called at noon"))
		waitEntered(t, emb)
		owed(engine.Owed{Embeddings: 2}, "m2 and m3 held")
		eraseCutPurge(t, e, "m3")
		if be.Name == "sqlite" {
			owed(engine.Owed{Embeddings: 1, Erasures: 1}, "m2 held, m3 erased, its purge cut")
		} else {
			owed(engine.Owed{Embeddings: 1}, "m2 held, m3 erased (its index entries went with its rows)")
		}
		release()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		owed(engine.Owed{}, "caught up")
	})
}

// eraseCutPurge erases message id on e with its context cancelled once
// the erasure committed its outbox delete row (SQLite: the purge then
// waits for the held drainer; an interrupt there leaves the removal
// owed). On Postgres, which queues no delete row, the erasure completes.
func eraseCutPurge(t *testing.T, e *engine.Engine, id string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			n := 0
			if engine.ConnOf(e).QueryRowContext(context.Background(), `SELECT COUNT(*) FROM outbox WHERE op = 'delete'`).Scan(&n) == nil && n > 0 {
				cancel()
				return
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	if _, err := e.DeleteMessages(ctx, id); err != nil && !errors.Is(err, engine.ErrEraseIncomplete) {
		t.Fatalf("erase %s: %v", id, err)
	}
}
