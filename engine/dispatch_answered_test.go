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
				if !errors.Is(err, engine.ErrDispatchNotFound) {
					t.Fatalf("settling the erased dispatch: %v, want ErrDispatchNotFound", err)
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
