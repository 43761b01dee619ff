package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestCloseContextCancelled: CloseContext with a cancelled context does not
// wait for the drainer's batch in flight (here held in an embedder that
// returns only when its context ends): the batch is cancelled at once, not
// after engine.CloseDrainWait, and its message stays queued: the next open
// indexes it.
func TestCloseContextCancelled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	emb := &gateEmbedder{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the boat is moored at pier 9")}}); err != nil {
		t.Fatal(err)
	}
	<-emb.entered // the drainer's batch is in flight, held in Embed
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	if err := e.CloseContext(cancelled); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= engine.CloseDrainWait {
		t.Fatalf("CloseContext with a cancelled context took %s, CloseDrainWait is %s", d, engine.CloseDrainWait)
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: &gateEmbedder{gate: closedGate(), entered: make(chan struct{}, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "pier", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("after reopening: %+v, %v; want the message indexed", res, err)
	}
}

// closedGate is a gate that lets every Embed through.
func closedGate() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
