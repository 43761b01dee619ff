package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// emailCall is an assistant message sending an e-mail to to, as call
// call_0 (a model numbering its calls per turn reuses that id).
func emailCall(to string) engine.Message {
	return engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "send_email", Arguments: json.RawMessage(`{"to":"` + to + `"}`)}}}
}

// unsettledRuns lists the runs of the thread's dispatches of unknown outcome.
func unsettledRuns(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ds, err := e.Unsettled(context.Background(), "t1", "ana")
	if err != nil {
		t.Fatal(err)
	}
	runs := []string{}
	for _, d := range ds {
		runs = append(runs, d.RunID)
	}
	return runs
}

// A call id reused while a dispatch with that id is pending is refused:
// a late settlement would land after the new call and answer it (the
// pairing is by position), telling the model that carol's e-mail was sent
// with bob's result.
func TestDispatchPendingCallIDReused(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana",
			Messages: []engine.Message{{Role: engine.RoleUser, Content: "email bob and carol"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana",
			Message: emailCall("bob"), CallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
		_, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r2", ThreadID: "t1", ResourceID: "ana",
			Message: emailCall("carol"), CallID: "call_0"})
		checkPending(t, err)
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{emailCall("carol")}})
		checkPending(t, err)
		if got := unsettledRuns(t, e); strings.Join(got, ",") != "r1" {
			t.Fatalf("unsettled runs %v, want [r1]", got)
		}

		// Settled first, the id may be used again: each result answers
		// its own call.
		if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent to bob"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r2", ThreadID: "t1", ResourceID: "ana",
			Message: emailCall("carol"), CallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
		if got := unsettledRuns(t, e); strings.Join(got, ",") != "r2" {
			t.Fatalf("unsettled runs %v, want [r2]", got)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", ResourceID: "ana", RecentN: 20})
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, m := range c.Messages {
			switch {
			case len(m.ToolCalls) > 0:
				shown = append(shown, string(m.ToolCalls[0].Arguments))
			case m.Role == engine.RoleTool:
				shown = append(shown, m.Content[:min(len(m.Content), 15)])
			}
		}
		want := `{"to":"bob"}|sent to bob|{"to":"carol"}|Outcome unknown`
		if got := strings.Join(shown, "|"); got != want {
			t.Fatalf("calls and results shown\n got %s\nwant %s", got, want)
		}
	})
}

// checkPending checks err is the refusal of a call id whose dispatch (run
// r1) is pending.
func checkPending(t *testing.T, err error) {
	t.Helper()
	var pe *engine.DispatchPendingError
	if !errors.Is(err, engine.ErrDispatchPending) || !errors.As(err, &pe) {
		t.Fatalf("got %v, want ErrDispatchPending", err)
	}
	if pe.CallID != "call_0" || pe.RunID != "r1" || !strings.Contains(err.Error(), `"call_0"`) || !strings.Contains(err.Error(), `"r1"`) ||
		!strings.Contains(err.Error(), "SettleDispatch") {
		t.Fatalf("error %+v: %v", pe, err)
	}
}

// A pending dispatch answered by a tool message appended without
// SettleDispatch is no longer pending: its call id may be used again, in
// the same append too, and a settlement arriving after that new call is
// refused (it would answer the new call), not stored.
func TestDispatchAnsweredThenReused(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana",
			Message: emailCall("bob"), CallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
		answer := engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
		daveSent := engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent to dave"}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana",
			Messages: []engine.Message{answer, emailCall("dave"), daveSent}}); err != nil {
			t.Fatalf("answer and new call in one append: %v", err)
		}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r2", ThreadID: "t1", ResourceID: "ana",
			Message: emailCall("carol"), CallID: "call_0"}); err != nil {
			t.Fatalf("begin after the answer: %v", err)
		}
		_, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent to bob"})
		if !errors.Is(err, engine.ErrConflict) || !strings.Contains(err.Error(), "made again") {
			t.Fatalf("late settlement after a reuse: %v, want ErrConflict", err)
		}
		if got := unsettledRuns(t, e); strings.Join(got, ",") != "r2" {
			t.Fatalf("unsettled runs %v, want [r2]", got)
		}
		if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r2", ResourceID: "ana", CallID: "call_0", Result: "sent to carol"}); err != nil {
			t.Fatal(err)
		}
	})
}

// A dispatch begun on a stored call that a later message makes again is
// refused: its settlement would answer that later call. Append refuses the
// later call while the first is unanswered (ErrCallOpen), so the thread
// gets there by erasing the first call's result.
func TestDispatchOfSupersededCall(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		first := emailCall("bob")
		first.ID = "m-bob"
		answer := engine.Message{ID: "a-bob", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana",
			Messages: []engine.Message{first, answer, emailCall("carol")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.DeleteMessages(ctx, "a-bob"); err != nil {
			t.Fatal(err)
		}
		_, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana", Message: first})
		if !errors.Is(err, engine.ErrConflict) || !strings.Contains(err.Error(), "made again") {
			t.Fatalf("dispatch of a superseded call: %v, want ErrConflict", err)
		}
		if got := unsettledRuns(t, e); len(got) != 0 {
			t.Fatalf("unsettled runs %v, want none", got)
		}
	})
}
