package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestReplayReadsNamedObservations: Replay reads the observations its run's
// record names, not every observation the thread ever had. Before, it
// listed all of them, retired and invalidated included (they accumulate
// as reflections retire their sources), on every replay: with 3,000
// retired observations stored after the run, one replay made 81,359
// allocations where it made 300 without them. Counted in allocations (testing.AllocsPerRun),
// not time. The replay itself is unchanged: the run's one live observation
// is in its prompt, and its hash matches.
func TestReplayReadsNamedObservations(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Embedder: recall.HashEmbedder{},
		Observe: &engine.ObserveConfig{Model: downModel(t), MaxUnobservedTokens: engine.NoUnobservedBound}})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		user("", "the ferry leaves at noon"), {Role: engine.RoleAssistant, Content: "noted"}}}); err != nil {
		t.Fatal(err)
	}
	db := engine.DBOf(e)
	insert := func(id string, retired bool) {
		t.Helper()
		var retiredAt any
		if retired {
			retiredAt = int64(1_700_000_000_000)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, sources, untrusted, created_at, retired_at)
			VALUES (?, 't', 'r', 1, 2, 'observation', ?, '[]', 0, 1700000000000, ?)`, id, "- the ferry leaves at noon ("+id+")", retiredAt); err != nil {
			t.Fatal(err)
		}
	}
	insert("obs-live", false)
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RunID: "run"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.MemCtx.Observations); got != 1 {
		t.Fatalf("the run's record names %d observations, want 1", got)
	}
	replay := func() {
		r, err := e.Replay(ctx, "run", engine.ReplayOptions{})
		if err != nil || r.Original.System != c.System {
			t.Fatalf("Replay: %v; or its system part differs from the run's", err)
		}
	}
	before := testing.AllocsPerRun(3, replay)
	for i := range 3000 {
		insert(fmt.Sprintf("obs-retired-%04d", i), true)
	}
	after := testing.AllocsPerRun(3, replay)
	if after-before > 1000 {
		t.Errorf("a replay made %.0f allocations with 3,000 retired observations stored, %.0f without: it reads observations its record does not name", after, before)
	}
}
