package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// beginEmail begins run's dispatch of call_0 of the message "m-call"
// (e-mail to bob) in ana's thread t1.
func beginEmail(e *engine.Engine, run string) (*engine.Dispatch, error) {
	call := emailCall("bob")
	call.ID = "m-call"
	return e.BeginDispatch(context.Background(), engine.DispatchIntent{RunID: run, ThreadID: "t1", ResourceID: "ana", Message: call})
}

// messageCount is the number of messages of ana's thread t1.
func messageCount(t *testing.T, e *engine.Engine) int {
	t.Helper()
	ms, err := e.Messages(context.Background(), "t1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

// A call holds one dispatch: a second run's BeginDispatch of a call that
// another run's dispatch holds, pending, settled or answered by a plain
// tool message, is refused with a *CallDispatchedError naming that run and
// its state, and stores nothing; a call a tool message answered without
// any dispatch is ErrDispatchAnswered. Before, the second dispatch was
// stored and could never be settled (ErrDispatchAnswered once the first
// was answered; settled first, it left the first stuck).
func TestDispatchBeginHeldCall(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		plainAnswer := func(e *engine.Engine) {
			t.Helper()
			answer := engine.Message{ID: "m-answer", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{answer}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			name, state string
			answer      func(e *engine.Engine) string // the first dispatch's answer, "" for none
		}{
			{"Pending", "pending", func(*engine.Engine) string { return "" }},
			{"Settled", "settled", func(e *engine.Engine) string {
				d, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent"})
				if err != nil {
					t.Fatal(err)
				}
				return d.ResultID
			}},
			{"Answered", "answered", func(e *engine.Engine) string { plainAnswer(e); return "m-answer" }},
		} {
			t.Run(c.name, func(t *testing.T) {
				e := be.MustOpen(t, engine.Config{})
				if _, err := beginEmail(e, "r1"); err != nil {
					t.Fatal(err)
				}
				answer := c.answer(e)
				n := messageCount(t, e)
				_, err := beginEmail(e, "r2")
				var cd *engine.CallDispatchedError
				if !errors.Is(err, engine.ErrCallDispatched) || !errors.As(err, &cd) {
					t.Fatalf("begin r2 on r1's %s call: %v, want a *CallDispatchedError", c.state, err)
				}
				want := engine.CallDispatchedError{CallID: "call_0", MessageID: "m-call", RunID: "r1", State: c.state, ResultID: answer}
				if *cd != want {
					t.Fatalf("refusal %+v, want %+v", *cd, want)
				}
				if !strings.Contains(err.Error(), `run "r1"`) || !strings.Contains(err.Error(), c.state) {
					t.Fatalf("the refusal does not name the run and its state: %v", err)
				}
				if got := messageCount(t, e); got != n {
					t.Fatalf("%d messages after the refusal, want %d", got, n)
				}
				_, err = e.SettleDispatch(ctx, engine.Settlement{RunID: "r2", ResourceID: "ana", CallID: "call_0", Result: "sent"})
				if !errors.Is(err, engine.ErrDispatchNotFound) {
					t.Fatalf("settle r2 after its refused begin: %v, want ErrDispatchNotFound (nothing stored)", err)
				}
				wantUnsettled := map[string]string{"pending": "r1"}[c.state]
				if got := unsettledRuns(t, e); strings.Join(got, ",") != wantUnsettled {
					t.Fatalf("unsettled runs %v, want [%s]", got, wantUnsettled)
				}
				// The run holding the call begins it again as before.
				if d, err := beginEmail(e, "r1"); err != nil || d.RunID != "r1" {
					t.Fatalf("begin r1 again: %+v, %v", d, err)
				}
			})
		}
		t.Run("AnsweredWithoutDispatch", func(t *testing.T) {
			e := be.MustOpen(t, engine.Config{})
			call := emailCall("bob")
			call.ID = "m-call"
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{call}}); err != nil {
				t.Fatal(err)
			}
			plainAnswer(e)
			_, err := beginEmail(e, "r1")
			if !errors.Is(err, engine.ErrDispatchAnswered) || !strings.Contains(err.Error(), `"m-answer"`) {
				t.Fatalf("begin on an answered call: %v, want ErrDispatchAnswered naming the answer", err)
			}
			if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "x"}); !errors.Is(err, engine.ErrDispatchNotFound) {
				t.Fatalf("settle after the refused begin: %v, want ErrDispatchNotFound", err)
			}
		})
	})
}

// An erased dispatch (its call's or its result's message erased, its
// thread kept) is told from one never begun: its settlement, and beginning
// it again under its own run, are ErrDispatchErased, and store nothing (the
// erased call is not appended again). It holds no call: another run may
// begin a dispatch of a call still stored. Another resource still gets
// ErrDispatchNotFound. Before, the settlement was ErrDispatchNotFound and
// beginning again stored the dispatch (and its erased call) anew.
func TestDispatchErasedLookup(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		for _, erase := range []string{"Call", "Settlement", "PlainAnswer"} {
			t.Run(erase, func(t *testing.T) {
				e := be.MustOpen(t, engine.Config{})
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana",
					Messages: []engine.Message{{Role: engine.RoleUser, Content: "mail bob"}}}); err != nil {
					t.Fatal(err)
				}
				d, err := beginEmail(e, "r1")
				if err != nil {
					t.Fatal(err)
				}
				victim := d.MessageID
				switch erase {
				case "Settlement":
					s, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent"})
					if err != nil {
						t.Fatal(err)
					}
					victim = s.ResultID
				case "PlainAnswer":
					answer := engine.Message{ID: "m-answer", Role: engine.RoleTool, ToolCallID: "call_0", Name: "send_email", Content: "sent"}
					if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{answer}}); err != nil {
						t.Fatal(err)
					}
					victim = "m-answer"
				}
				if _, err := e.DeleteMessages(ctx, victim); err != nil {
					t.Fatal(err)
				}
				n := messageCount(t, e)
				_, err = e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent again"})
				if !errors.Is(err, engine.ErrDispatchErased) {
					t.Fatalf("settle after erasing the %s: %v, want ErrDispatchErased", erase, err)
				}
				_, err = e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "mallory", CallID: "call_0", Result: "x"})
				if !errors.Is(err, engine.ErrDispatchNotFound) || strings.Contains(err.Error(), "ana") {
					t.Fatalf("another resource's settlement: %v, want ErrDispatchNotFound naming nothing of ana", err)
				}
				_, err = beginEmail(e, "r1")
				if !errors.Is(err, engine.ErrDispatchErased) || !strings.Contains(err.Error(), "another run id") {
					t.Fatalf("begin r1 again after erasing the %s: %v, want ErrDispatchErased saying what to do", erase, err)
				}
				if got := messageCount(t, e); got != n {
					t.Fatalf("%d messages after the refusals, want %d (the erased call is not stored again)", got, n)
				}
				// Another run may dispatch the call, stored (or appended) again.
				if _, err := beginEmail(e, "r2"); err != nil {
					t.Fatalf("begin r2 after r1's dispatch was erased: %v", err)
				}
				s, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r2", ResourceID: "ana", CallID: "call_0", Result: "sent by r2"})
				if err != nil || !s.Settled {
					t.Fatalf("settle r2: %+v, %v", s, err)
				}
				if got := unsettledRuns(t, e); len(got) != 0 {
					t.Fatalf("unsettled runs %v, want none", got)
				}
			})
		}
	})
}
