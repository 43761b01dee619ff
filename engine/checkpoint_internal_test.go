package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestDrainCheckpointUnderDrainLock: a drained batch is checkpointed
// before the drain lock is let go, so a drain that waited for the batch
// (SyncIndexes behind the background drainer's last rows) returns with
// the WAL checkpointed. flake53: the checkpoint ran after the unlock;
// under load SyncIndexes found no rows due and returned first, and
// TestDrainCheckpoints saw mnemo.db still at its size of the open.
func TestDrainCheckpointUnderDrainLock(t *testing.T) {
	var batches, unlocked atomic.Int32
	drainCheckpointHook = func(e *Engine) {
		batches.Add(1)
		if len(e.idx.drainMu.c()) == 0 {
			unlocked.Add(1)
		}
	}
	t.Cleanup(func() { drainCheckpointHook = nil })
	ctx := context.Background()
	e, err := Open(ctx, Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		msg := Message{ID: fmt.Sprintf("m%d", i), Role: "user", Content: fmt.Sprintf("turn %d about the heron by the weir", i)}
		if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []Message{msg}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if batches.Load() == 0 || unlocked.Load() != 0 {
		t.Fatalf("%d of %d drained batches were checkpointed with the drain lock let go, want 0 of at least 1", unlocked.Load(), batches.Load())
	}
}
