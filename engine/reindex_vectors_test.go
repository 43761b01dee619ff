package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestReindexVectorsStatus: a search while Reindex(ctx, true) re-embeds,
// after the vectors are dropped and before the drain, never reads the
// vector channel "ok" with no vector to find: on Postgres, with the
// drainer held, it reads "degraded: 3 of 3 messages not embedded yet";
// afterwards the vector channel is "ok" and finds the message again.
// Before, Postgres deleted the vectors and queued them again in two
// transactions: a search between them read "ok" and found nothing
// (pgrecall counts unembedded messages only while an outbox row owes
// one). SQLite drops them under the index lock, before any search of the
// new index, and queues after it (TestSearchDuringReindexQueue).
func TestReindexVectorsStatus(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{}})
		for _, text := range []string{"the night train leaves at ten", "my sister lives in Porto", "we rowed across the lake"} {
			appendUser(t, e, "t1", "u1", text)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		search := func() (status string, hits int) {
			t.Helper()
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "my sister lives in Porto",
				Options: recall.Options{Mode: recall.ModeVector, TopK: 3}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if h.Reason == recall.ReasonHit {
					hits++
				}
			}
			return res.Retrieval.Vector, hits
		}
		if status, hits := search(); status != recall.StatusOK || hits == 0 {
			t.Fatalf("before Reindex: vector %q with %d hits, want ok with hits", status, hits)
		}

		var release func()
		if be.Name == enginetest.Postgres.Name {
			release = sync.OnceFunc(e.HoldDrain()) // Reindex on Postgres drains only at the end (SyncIndexes)
		}
		var during string
		engine.SetAfterReindexQueue(e, func() {
			status, hits := search()
			during = status
			if release != nil {
				release()
			}
			if status == recall.StatusOK && hits == 0 {
				t.Errorf("during Reindex --vectors: vector channel %q with no hit: the dropped vectors are owed by nothing", status)
			}
			if want := recall.EmbeddedStatus(3, 0); release != nil && status != want {
				t.Errorf("during Reindex --vectors: vector channel %q, want %q", status, want)
			}
		})
		if err := e.Reindex(ctx, true); err != nil {
			t.Fatal(err)
		}
		engine.SetAfterReindexQueue(e, nil)
		t.Logf("during: vector %q", during)
		if status, hits := search(); status != recall.StatusOK || hits == 0 {
			t.Fatalf("after Reindex: vector %q with %d hits, want ok with hits", status, hits)
		}
	})
}
