package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestCloseReleasesClaimedRows: an engine closed while its drainer embeds
// a batch leaves the batch to the next drainer at once. On Postgres the
// drainer claims its batch with a lease (outboxLease, 2 minutes) so that
// the other processes' drainers skip it; before, Close left the lease in
// place, and the next engine on the database could not embed the batch
// for two minutes (Check: "outbox rows still pending"). Two engine
// processes that stop and start (a deploy) hit it on every restart.
func TestCloseReleasesClaimedRows(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		emb := &gateEmbedder{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
		e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: emb}))
		if err != nil {
			t.Fatal(err)
		}
		appendTo(t, e, "t", "r", user("a", "the heron waits by the weir"), user("b", "and the otter does not"))
		select {
		case <-emb.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the drainer never embedded")
		}
		// The drainer is inside Embed, which returns only when its context
		// ends: Close would wait CloseDrainWait (10 s) before cancelling
		// it; a deadline takes the same path (drainCancel) sooner.
		closeCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if err := e.CloseContext(closeCtx); err != nil {
			t.Fatal(err)
		}
		open := make(chan struct{})
		close(open)
		e2 := be.MustOpen(t, st.Config(engine.Config{Embedder: &gateEmbedder{gate: open, entered: make(chan struct{}, 1)}}))
		if err := e2.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e2)
	})
}
