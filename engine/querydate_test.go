package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// queryDateEngine opens an engine whose clock reads *clock, holding three
// threads of one resource whose user turn says the same words, created on
// 8, 9 and 10 May 2023 at 10:00 UTC (threads "t-8", "t-9", "t-10"), and
// one unrelated thread.
func queryDateEngine(t *testing.T, be enginetest.Backend, clock *time.Time) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	e := be.MustOpen(t, engine.Config{Now: func() time.Time { return *clock }})
	for _, d := range []int{8, 9, 10} {
		at := time.Date(2023, 5, d, 10, 0, 0, 0, time.UTC)
		msgs := []engine.Message{
			{Role: engine.RoleUser, Content: "We talked about the garden plans and the tomato beds", CreatedAt: at},
			{Role: engine.RoleAssistant, Content: "Noted.", CreatedAt: at.Add(time.Minute)},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t-%d", d), ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	other := []engine.Message{{Role: engine.RoleUser, Content: "My sister visits in June", CreatedAt: time.Date(2023, 4, 2, 9, 0, 0, 0, time.UTC)}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-other", ResourceID: "r", Messages: other}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// firstThread is the thread of the rank-1 hit of res.
func firstThread(res *recall.Result) string {
	for _, h := range res.Hits {
		if h.Rank == 1 && h.Reason == recall.ReasonHit {
			return h.ThreadID
		}
	}
	return ""
}

// TestQueryRelativeDate: a question's own relative date ("yesterday") is
// resolved against the time it is asked (SearchRequest.At, LoadRequest.At;
// the engine's clock when zero), so the turn created that day ranks above
// the same words said on another day, on either backend and in either
// mode. Before, the query's "yesterday" was only a word no turn held and
// the three turns tied.
func TestQueryRelativeDate(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := time.Date(2023, 5, 11, 12, 0, 0, 0, time.UTC)
		e := queryDateEngine(t, be, &clock)
		const q = "What did we talk about yesterday?"
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid} {
			for _, c := range []struct {
				at   time.Time
				want string
			}{
				{time.Time{}, "t-10"}, // the engine's clock: 11 May
				{time.Date(2023, 5, 10, 15, 0, 0, 0, time.UTC), "t-9"},
				{time.Date(2023, 5, 9, 23, 0, 0, 0, time.FixedZone("", -4*3600)), "t-9"}, // 10 May 03:00 UTC
				{time.Date(2023, 5, 9, 8, 0, 0, 0, time.UTC), "t-8"},
			} {
				res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: q, At: c.at,
					Options: recall.Options{TopK: 3, Mode: mode}})
				if err != nil {
					t.Fatal(err)
				}
				if got := firstThread(res); got != c.want {
					t.Errorf("%s, asked at %v: first hit in %s, want %s (%+v)", mode, c.at, got, c.want, res.Hits)
				}
			}
		}
		at := time.Date(2023, 5, 10, 15, 0, 0, 0, time.UTC)
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-at", ThreadID: "t-new", ResourceID: "r", Query: q, At: at,
			Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.MemCtx.Recalled) == 0 || c.MemCtx.Recalled[0].ThreadID != "t-9" {
			t.Fatalf("LoadContext at %v recalled %+v, want t-9's turn", at, c.MemCtx.Recalled)
		}
		if want := at.Format(journal.TimeLayout); c.MemCtx.QueryAt != want {
			t.Fatalf("memctx.queryAt = %q, want %q", c.MemCtx.QueryAt, want)
		}
		c, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-now", ThreadID: "t-new", ResourceID: "r", Query: q,
			Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.MemCtx.Recalled) == 0 || c.MemCtx.Recalled[0].ThreadID != "t-10" || c.MemCtx.QueryAt != c.MemCtx.CreatedAt {
			t.Fatalf("LoadContext at the clock: recalled %+v, queryAt %q, createdAt %q", c.MemCtx.Recalled, c.MemCtx.QueryAt, c.MemCtx.CreatedAt)
		}
	})
}

// TestReplayQueryAt: a run's memctx record keeps the time its query's
// relative dates were resolved against, and replay rebuilds the run from
// the record (its recalled turns as recorded), not by resolving the query
// again at the replay's clock: a day later, the replayed prompt is the
// recorded one though a new load of the same query recalls another turn.
func TestReplayQueryAt(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := time.Date(2023, 5, 10, 12, 0, 0, 0, time.UTC)
		e := queryDateEngine(t, be, &clock)
		const q = "What did we talk about yesterday?"
		opts := &recall.Options{TopK: 1, Mode: recall.ModeLexical}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t-new", ResourceID: "r", Query: q, Recall: opts})
		if err != nil {
			t.Fatal(err)
		}
		clock = clock.AddDate(0, 0, 1) // yesterday is now 10 May
		later, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "t-new", ResourceID: "r", Query: q, Recall: opts})
		if err != nil {
			t.Fatal(err)
		}
		rp, err := e.Replay(ctx, "run-1", engine.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rp.Original.PromptHash != c.PromptHash || rp.Record.QueryAt != "2023-05-10T12:00:00.000Z" {
			t.Fatalf("replay: hash %s (recorded %s), queryAt %q", rp.Original.PromptHash, c.PromptHash, rp.Record.QueryAt)
		}
		if len(rp.Original.MemCtx.Recalled) == 0 || rp.Original.MemCtx.Recalled[0].ThreadID != "t-9" {
			t.Fatalf("replay recalled %+v, want t-9's turn", rp.Original.MemCtx.Recalled)
		}
		if len(later.MemCtx.Recalled) == 0 || later.MemCtx.Recalled[0].ThreadID != "t-10" || later.MemCtx.QueryAt != "2023-05-11T12:00:00.000Z" {
			t.Fatalf("a load a day later recalled %+v at %q: the clock did not move the query's date", later.MemCtx.Recalled, later.MemCtx.QueryAt)
		}
	})
}
