package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestReplayAnswerBound: a run recorded under a larger
// Limits.MaxAnswerBytes (a window of four 100 KB turns, 400 KB) is not
// replayed by an engine whose bound is 300,000 bytes: Replay returns a
// *ReplayTooLargeError naming the run and the bound (errors.Is
// ErrAnswerTooLarge), and no replay, whole or in part, with or without
// removals; a run of two such turns replays under it. Before, Replay read
// a run's turns whatever their size.
func TestReplayAnswerBound(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		e, err := engine.Open(ctx, st.Config(engine.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []engine.Message
		for i := range 4 {
			msgs = append(msgs, user("", fmt.Sprintf("harbour note %d ", i)+strings.Repeat("lantern ", 100_000/8)))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		for run, n := range map[string]int{"big": 4, "small": 2} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", RecentN: n}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		e = be.MustOpen(t, st.Config(engine.Config{Limits: engine.Limits{MaxAnswerBytes: 300_000}}))
		for _, opt := range []engine.ReplayOptions{{}, {WithoutRecalled: true}, {WithoutTurns: []engine.TurnRef{{ThreadID: "t", Seq: 1}}}} {
			r, err := e.Replay(ctx, "big", opt)
			var rt *engine.ReplayTooLargeError
			if !errors.As(err, &rt) || rt.RunID != "big" || rt.Limit != 300_000 || !errors.Is(err, engine.ErrAnswerTooLarge) || r != nil {
				t.Fatalf("replay of big %+v: %v, %v; want a *ReplayTooLargeError of big and 300000, and no replay", opt, r, err)
			}
		}
		r, err := e.Replay(ctx, "small", engine.ReplayOptions{})
		if err != nil || len(r.Original.Messages) != 2 {
			t.Fatalf("replay of small: %v, want its 2 turns", err)
		}
	})
}
