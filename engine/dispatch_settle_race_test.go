package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// Two settlements of one pending dispatch at once are the normal shape of
// a reconciler retrying after a timeout, or of two workers reconciling the
// same Unsettled list. Settling is idempotent by (thread, run, call id):
// the same outcome answers nil, another ErrDispatchSettled. Before
// SettleDispatch read its dispatch under the thread's append lock, on
// Postgres the loser's transaction read the dispatch pending, then, in a
// later statement, found the winner's committed settlement message and
// took it for a tool message appended without a settlement:
// ErrDispatchAnswered, naming the winner's own message (readme73 F1).

// settleRaceRounds is how many pending dispatches TestDispatchSettleRace
// settles twice at once per case: without that lock, 1 to 7 of 100
// rounds of a case failed on Postgres (three runs: 3 and 1, 4 and 2, 7
// and 3).
const settleRaceRounds = 100

// settlePair runs the two settlements at once, through a and b, and
// returns their answers.
func settlePair(ctx context.Context, a, b *engine.Engine, sa, sb engine.Settlement) (da, db *engine.Dispatch, ea, eb error) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); <-start; da, ea = a.SettleDispatch(ctx, sa) }()
	go func() { defer wg.Done(); <-start; db, eb = b.SettleDispatch(ctx, sb) }()
	close(start)
	wg.Wait()
	return da, db, ea, eb
}

// settledPair checks the answers of two settlements of one dispatch, the
// second with the result other: both nil with one result message when it
// is the first's, else one nil and one ErrDispatchSettled. It returns what
// is wrong, "" when nothing is.
func settledPair(da, db *engine.Dispatch, ea, eb error, same bool) string {
	switch {
	case same && (ea != nil || eb != nil):
		return fmt.Sprintf("same result: %v / %v, want nil twice", ea, eb)
	case same && (!da.Settled || da.ResultID != db.ResultID):
		return fmt.Sprintf("same result: %+v / %+v, want one settlement", da, db)
	case same:
		return ""
	case (ea == nil) == (eb == nil):
		return fmt.Sprintf("other results: %v / %v, want one nil and one ErrDispatchSettled", ea, eb)
	}
	if err := errors.Join(ea, eb); !errors.Is(err, engine.ErrDispatchSettled) || errors.Is(err, engine.ErrDispatchAnswered) {
		return fmt.Sprintf("other results: the loser got %v, want ErrDispatchSettled", err)
	}
	return ""
}

// TestDispatchSettleRace: one pending dispatch settled twice at once, on
// Postgres through two engines on one schema (two processes), on SQLite
// through one engine (one process holds a directory), each case
// settleRaceRounds times: the same result answers nil twice with one
// result message; another result answers one nil and one
// ErrDispatchSettled; never ErrDispatchAnswered.
func TestDispatchSettleRace(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		st := be.NewStore(t)
		a := enginetest.MustOpen(t, st.Config(engine.Config{}))
		b := a
		if be.Name == enginetest.Postgres.Name {
			b = enginetest.MustOpen(t, st.Config(engine.Config{}))
		}
		for _, c := range []struct {
			name, other string
		}{{"SameResult", "charged, ref T-9"}, {"OtherResult", "declined"}} {
			t.Run(c.name, func(t *testing.T) {
				var wrong []string
				for k := range settleRaceRounds {
					thread, run := fmt.Sprintf("%s-%d", c.name, k), fmt.Sprintf("run-%s-%d", c.name, k)
					beginCharge(t, a, "alice", thread, run)
					s := engine.Settlement{RunID: run, ResourceID: "alice", CallID: "call_0", Result: "charged, ref T-9"}
					other := s
					other.Result = c.other
					da, db, ea, eb := settlePair(ctx, a, b, s, other)
					if w := settledPair(da, db, ea, eb, s == other); w != "" {
						wrong = append(wrong, fmt.Sprintf("round %d: %s", k, w))
					}
					if ms, err := a.Messages(ctx, thread, 0, 0); err != nil || len(ms) != 3 {
						t.Fatalf("round %d: %d messages (%v), want 3: the request, the call, one result", k, len(ms), err)
					}
				}
				if len(wrong) > 0 {
					t.Fatalf("%d of %d rounds answered wrongly:\n%s", len(wrong), settleRaceRounds, strings.Join(wrong, "\n"))
				}
			})
		}
	})
}

// TestDispatchSettleAfterOwnIDAnswer: a tool message appended with Append
// under the id the settlement would take, holding the same result, is
// still an answer without a settlement: SettleDispatch answers
// ErrDispatchAnswered naming it.
func TestDispatchSettleAfterOwnIDAnswer(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		beginCharge(t, e, "alice", "chat", "run-1")
		id := engine.SettlementMessageID("run-1", "call_0")
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "chat", ResourceID: "alice", Messages: []engine.Message{{
			ID: id, Role: engine.RoleTool, ToolCallID: "call_0", Name: "charge_card", Content: "charged"}}}); err != nil {
			t.Fatal(err)
		}
		_, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "run-1", ResourceID: "alice", CallID: "call_0", Result: "charged"})
		if !errors.Is(err, engine.ErrDispatchAnswered) || !strings.Contains(err.Error(), id) {
			t.Fatalf("settle after a plain answer under the settlement's id: %v, want ErrDispatchAnswered naming it", err)
		}
	})
}
