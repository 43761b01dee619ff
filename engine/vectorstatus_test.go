package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// vectorRetrieval returns the Retrieval of a vector search of resource r
// on e.
func vectorRetrieval(t *testing.T, e *engine.Engine, r string) recall.Retrieval {
	t.Helper()
	res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: r, Query: "refund approved", Options: recall.Options{TopK: 5, Mode: recall.ModeVector}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Retrieval
}

// waitEntered waits until emb's held Embed is entered.
func waitEntered(t *testing.T, emb *heldEmbedder) {
	t.Helper()
	select {
	case <-emb.entered:
	case <-time.After(time.Minute):
		t.Fatal("the drainer did not start embedding the held text within a minute")
	}
}

// TestPostgresVectorStatusErased: on Postgres a search's vector status
// counts the resource only while an embedding is owed there (an outbox
// row): a message whose embedding is held reads "degraded: 1 of 2", and
// once it is erased (its row moved out of the resource, its message and
// lexical entry deleted) the resource reads "ok", before the drainer is
// released; the rows of another resource never count.
func TestPostgresVectorStatusErased(t *testing.T) {
	ctx := context.Background()
	emb := &heldEmbedder{entered: make(chan struct{}, 1)}
	e, err := engine.Open(ctx, enginetest.Postgres.Config(t, engine.Config{Embedder: emb}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, m := range []struct{ r, id, text string }{{"r", "m1", "the parcel left the depot"}, {"r2", "o1", "another resource's turn"}} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-" + m.r, ResourceID: m.r, Messages: []engine.Message{user(m.id, m.text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	release := holdEmbed(t, emb, "the refund was approved")
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-r", ResourceID: "r", Messages: []engine.Message{user("m2", "the refund was approved")}}); err != nil {
		t.Fatal(err)
	}
	waitEntered(t, emb)
	if got, want := vectorRetrieval(t, e, "r").Vector, recall.EmbeddedStatus(2, 1); got != want {
		t.Errorf("m2's embedding held: vector %q, want %q", got, want)
	}
	if got := vectorRetrieval(t, e, "r2").Vector; got != recall.StatusOK {
		t.Errorf("r2, m2 (r) held: vector %q, want ok", got)
	}
	if _, err := e.DeleteMessages(ctx, "m2"); err != nil {
		t.Fatal(err)
	}
	if got := vectorRetrieval(t, e, "r").Vector; got != recall.StatusOK {
		t.Errorf("m2 erased, its embedding still held: vector %q, want ok", got)
	}
	release()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := vectorRetrieval(t, e, "r").Vector; got != recall.StatusOK {
		t.Errorf("caught up: vector %q, want ok", got)
	}
}

// TestPostgresVectorStatusEmbedderSwitched: on Postgres, after an Open
// with another embedder (SwitchEmbedder), a search's vector status says
// how many of the resource's messages the new embedder has not embedded
// yet (Open queued them all), and "ok" once it has.
func TestPostgresVectorStatusEmbedderSwitched(t *testing.T) {
	ctx := context.Background()
	st := enginetest.Postgres.NewStore(t)
	e, err := engine.Open(ctx, st.Config(engine.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []engine.Message{user("m1", "the parcel left the depot"), user("m2", "the refund was approved"), user("m3", "the courier called")}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := vectorRetrieval(t, e, "r").Vector; got != recall.StatusOK {
		t.Fatalf("embedded: vector %q, want ok", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	emb := &heldEmbedder{entered: make(chan struct{}, 1)}
	release := holdEmbed(t, emb, "the refund was approved")
	e, err = engine.Open(ctx, st.Config(engine.Config{Embedder: emb, SwitchEmbedder: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	waitEntered(t, emb)
	if got, want := vectorRetrieval(t, e, "r").Vector, recall.EmbeddedStatus(3, 0); got != want {
		t.Errorf("embedder switched, held: vector %q, want %q", got, want)
	}
	release()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "the refund was approved", Options: recall.Options{TopK: 1, Mode: recall.ModeVector}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Retrieval.Vector != recall.StatusOK || len(res.Hits) != 1 || res.Hits[0].MessageID != "m2" {
		t.Errorf("embedded by %s: retrieval %+v, hits %d, want ok and m2 first", emb.ID(), res.Retrieval, len(res.Hits))
	}
}

// TestLostVectorQueuedPastStaleRow: Open queues the embedding of a message
// whose vector is gone even when the outbox holds as many rows owing
// embeddings as vectors are missing, none of them the message's (here a
// deferred row of an erased message, as an erasure leaves it under no
// resource). Open's test counted every such row, so it found nothing
// missing and the message was never embedded again; on Postgres, where a
// search's vector status is "ok" when no row of the resource owes an
// embedding, the status was then wrong too.
func TestLostVectorQueuedPastStaleRow(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		e, err := engine.Open(ctx, st.Config(engine.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		msgs := []engine.Message{user("m1", "the parcel left the depot"), user("m2", "the refund was approved")}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour).UnixMilli() // deferred after failures: the drainer leaves it
		for _, q := range []string{`DELETE FROM embeddings WHERE message_id = 'm2'`,
			fmt.Sprintf(`INSERT INTO outbox (op, message_id, resource_id, attempts, not_before, created_at) VALUES ('embed', 'gone', '', 3, %d, 0)`, later)} {
			if _, err := engine.ConnOf(e).ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e, err = engine.Open(ctx, st.Config(engine.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE message_id = 'm2'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("m2's vector lost, a stale row queued: %d embeddings of m2 after Open, want 1", n)
		}
		if got := vectorRetrieval(t, e, "r").Vector; got != recall.StatusOK {
			t.Errorf("re-embedded: vector %q, want ok", got)
		}
		if _, err := engine.ConnOf(e).ExecContext(ctx, `DELETE FROM outbox`); err != nil {
			t.Fatal(err)
		}
	})
}
