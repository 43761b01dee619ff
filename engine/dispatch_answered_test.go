package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// shownCalls lists the calls and results of the thread's context: a call
// as its arguments, a result as its first 15 bytes.
func shownCalls(t *testing.T, e *engine.Engine) (shown string, dropped []journal.Ref) {
	t.Helper()
	c, err := e.LoadContext(context.Background(), engine.LoadRequest{ThreadID: "t1", ResourceID: "ana", RecentN: 20})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, m := range c.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			parts = append(parts, string(m.ToolCalls[0].Arguments))
		case m.Role == engine.RoleTool:
			parts = append(parts, m.Content[:min(len(m.Content), 15)])
		}
	}
	return strings.Join(parts, "|"), c.MemCtx.Dropped
}

// A dispatch answered by a plain tool message (appended without
// SettleDispatch) has a known outcome; erasing that answer erases the
// dispatch with it, as erasing a settlement's message does: it is not
// brought back as "outcome unknown". Before, it came back in Unsettled,
// and when its call id had been made again since, no settlement could ever
// be stored for it (ErrConflict: it would answer the later call), so it
// stayed unsettled for good and LoadContext told the model its outcome was
// unknown.
func TestDispatchAnswerErased(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		for _, reused := range []bool{true, false} {
			name := map[bool]string{true: "Reused", false: "NotReused"}[reused]
			t.Run(name, func(t *testing.T) {
				e := be.MustOpen(t, engine.Config{})
				if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana",
					Message: emailCall("bob"), CallID: "call_0"}); err != nil {
					t.Fatal(err)
				}
				answer := engine.Message{ID: "m-answer", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{answer}}); err != nil {
					t.Fatal(err)
				}
				want := ""
				if reused {
					if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r2", ThreadID: "t1", ResourceID: "ana",
						Message: emailCall("carol"), CallID: "call_0"}); err != nil {
						t.Fatal(err)
					}
					want = "r2"
				}
				if _, err := e.DeleteMessages(ctx, "m-answer"); err != nil {
					t.Fatal(err)
				}
				if got := unsettledRuns(t, e); strings.Join(got, ",") != want {
					t.Fatalf("unsettled runs %v, want [%s]: the erased answer's dispatch came back", got, want)
				}
				// Its call has no result left: dropped as unpaired, not
				// shown with an "outcome unknown" result.
				shown, dropped := shownCalls(t, e)
				if wantShown := map[bool]string{true: `{"to":"carol"}|Outcome unknown`, false: ""}[reused]; shown != wantShown {
					t.Fatalf("calls and results shown\n got %s\nwant %s", shown, wantShown)
				}
				if len(dropped) != 1 || dropped[0].Reason != journal.ReasonUnpairedToolCall || dropped[0].Seq != 1 {
					t.Fatalf("dropped %+v, want bob's call as unpaired", dropped)
				}
				_, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent to bob"})
				if !errors.Is(err, engine.ErrDispatchErased) {
					t.Fatalf("settling the erased dispatch: %v, want ErrDispatchErased", err)
				}
				if reused {
					if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r2", ResourceID: "ana", CallID: "call_0", Result: "sent to carol"}); err != nil {
						t.Fatal(err)
					}
				}
				if got := unsettledRuns(t, e); len(got) != 0 {
					t.Fatalf("unsettled runs %v, want none", got)
				}
			})
		}
	})
}

// A settlement of a dispatch whose call a plain tool message already
// answered is refused with ErrDispatchAnswered and stores nothing: it
// would be a second result for the call (an orphan the pairing drops, and
// the outcome it records is not the one the model was shown). Before, the
// settlement was appended after the answer. Two runs' dispatches of one
// call were the same case once one was settled; the second is now refused
// when it is begun (ErrCallDispatched).
func TestDispatchSettleAfterAnswer(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		count := func(e *engine.Engine) int {
			t.Helper()
			ms, err := e.Messages(ctx, "t1", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(ms)
		}
		t.Run("PlainAnswer", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{})
			if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana", Message: emailCall("bob")}); err != nil {
				t.Fatal(err)
			}
			answer := engine.Message{ID: "m-answer", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{answer}}); err != nil {
				t.Fatal(err)
			}
			for _, s := range []engine.Settlement{{Result: "sent"}, {Result: "sent to bob"}, {Error: "bounced"}} {
				s.RunID, s.ResourceID, s.CallID = "r1", "ana", "call_0"
				_, err := e.SettleDispatch(ctx, s)
				if !errors.Is(err, engine.ErrDispatchAnswered) || !strings.Contains(err.Error(), `"m-answer"`) {
					t.Fatalf("settle %+v after a plain answer: %v, want ErrDispatchAnswered naming the answer", s, err)
				}
			}
			if n := count(e); n != 2 {
				t.Fatalf("%d messages after the refused settlements, want 2 (the call and its answer)", n)
			}
			if shown, dropped := shownCalls(t, e); shown != `{"to":"bob"}|sent` || len(dropped) != 0 {
				t.Fatalf("context %s, dropped %+v", shown, dropped)
			}
		})
		t.Run("TwoRunsOneCall", func(t *testing.T) {
			// A second run's dispatch of the call is refused when it is begun
			// (dispatch_begin.go), so this case cannot be built through the
			// engine any more; TestDispatchBeginHeldCall has it.
			e := be.MustOpen(t, engine.Config{})
			call := emailCall("bob")
			call.ID = "m-call"
			if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana", Message: call}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r2", ThreadID: "t1", ResourceID: "ana", Message: call}); !errors.Is(err, engine.ErrCallDispatched) {
				t.Fatalf("begin r2 on r1's call: %v, want ErrCallDispatched", err)
			}
			if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent"}); err != nil {
				t.Fatal(err)
			}
			_, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r2", ResourceID: "ana", CallID: "call_0", Result: "sent"})
			if !errors.Is(err, engine.ErrDispatchNotFound) {
				t.Fatalf("settle r2, never begun: %v, want ErrDispatchNotFound", err)
			}
			if n := count(e); n != 2 {
				t.Fatalf("%d messages, want 2", n)
			}
			// r1's own settlement stays idempotent.
			if d, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent"}); err != nil || !d.Settled {
				t.Fatalf("settle r1 again: %+v, %v", d, err)
			}
		})
	})
}
