package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

func TestTokenBudget(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Observe: &engine.ObserveConfig{}}) // render-only
		var old []engine.Message
		for i := range 12 {
			topic := "the garden shed"
			if i%3 == 0 { // hits at seqs 1, 4, 7, 10: no two in one run
				topic = "the harbour crane"
			}
			old = append(old, user("", fmt.Sprintf("note %02d about %s %s", i, topic, strings.Repeat("detail ", 20))))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "old", ResourceID: "r", Messages: old}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "cur", ResourceID: "r", Messages: []engine.Message{user("", "what about the harbour crane?")}}); err != nil {
			t.Fatal(err)
		}
		for i, body := range []string{"- the crane was inspected in March", "- the crane failed its April test"} {
			if _, err := engine.ConnOf(e).ExecContext(context.Background(), `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at)
			VALUES (?, 'cur', 'r', 1, 1, 'observation', ?, ?)`, fmt.Sprintf("obs-%d", i), body, 1000+i); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		opts := &recall.Options{TopK: 4, Mode: recall.ModeLexical}
		full, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur", Recall: opts})
		if err != nil {
			t.Fatal(err)
		}
		if len(full.MemCtx.Recalled) != 4 || full.MemCtx.ObservationCount != 2 || full.MemCtx.DroppedCount != 0 {
			t.Fatalf("without budget: recalled %d, observations %d, dropped %d", len(full.MemCtx.Recalled), full.MemCtx.ObservationCount, full.MemCtx.DroppedCount)
		}
		// Room for the observations and two recalled turns: the two lowest-scored
		// recalled turns go.
		perTurn := (len(old[0].Content)+3)/4 + 4
		obsTokens := 2 * ((len("- the crane was inspected in March")+3)/4 + 16)
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur", Recall: opts, TokenBudget: obsTokens + 2*perTurn + 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.MemCtx.Recalled) != 2 || c.MemCtx.ObservationCount != 2 || c.MemCtx.DroppedCount != 2 {
			t.Fatalf("budget 1: recalled %d, observations %d, dropped %+v", len(c.MemCtx.Recalled), c.MemCtx.ObservationCount, c.MemCtx.Dropped)
		}
		for _, d := range c.MemCtx.Dropped {
			if d.Reason != journal.ReasonBudget || *d.Score > *c.MemCtx.Recalled[0].Score || *d.Score > *c.MemCtx.Recalled[1].Score {
				t.Fatalf("dropped %+v, kept %+v: not the lowest-scored", d, c.MemCtx.Recalled)
			}
		}
		// Room for one observation only: every recalled turn goes, then the
		// oldest observation.
		c, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "cur", Recall: opts, TokenBudget: obsTokens / 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.MemCtx.Recalled) != 0 || c.MemCtx.ObservationCount != 1 || c.MemCtx.Observations[0].ID != "obs-1" {
			t.Fatalf("budget 2: recalled %d, observations %+v", len(c.MemCtx.Recalled), c.MemCtx.Observations)
		}
		last := c.MemCtx.Dropped[len(c.MemCtx.Dropped)-1]
		if last.MessageID != "obs-0" || last.Reason != journal.ReasonBudget || c.MemCtx.RecentCount != 1 {
			t.Fatalf("dropped %+v, recent %d", c.MemCtx.Dropped, c.MemCtx.RecentCount)
		}
		if _, err := e.Replay(ctx, c.MemCtx.RunID, engine.ReplayOptions{}); err != nil {
			t.Fatalf("replay of a budgeted run: %v", err)
		}
	})
}
