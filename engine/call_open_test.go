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

// TestAppendRefusesOpenCallID is walk37 #1: two agent loops on one thread,
// a model server numbering its calls call_0 in every answer. Loop B's call
// call_0 came while loop A's call_0 was unanswered; every Append
// succeeded, and LoadContext paired B's Oslo call with A's "Lyon: sunny
// 25C" and dropped A's call and B's result. Now B's call is refused
// (ErrCallOpen, naming the field and the unanswered call's seq), nothing
// of it stored; once A's result is in, B's call is taken and each result
// answers its own call.
func TestAppendRefusesOpenCallID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		add := func(ms ...engine.Message) error {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "tx", ResourceID: "ana", Messages: ms})
			return err
		}
		user := func(s string) engine.Message { return engine.Message{Role: engine.RoleUser, Content: s} }
		result := func(s string) engine.Message {
			return engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: "weather", Content: s}
		}
		for _, m := range []engine.Message{user("A: what's the weather in Lyon?"), weatherCall("Lyon"), user("B: what's the weather in Oslo?")} {
			if err := add(m); err != nil {
				t.Fatal(err)
			}
		}
		err := add(weatherCall("Oslo"))
		var oe *engine.CallOpenError
		if !errors.Is(err, engine.ErrCallOpen) || !errors.As(err, &oe) {
			t.Fatalf("B's call_0 while A's is unanswered: %v, want ErrCallOpen", err)
		}
		if oe.Index != 0 || oe.CallIndex != 0 || oe.CallID != "call_0" || oe.Seq != 2 ||
			!strings.Contains(err.Error(), "messages[0].toolCalls[0].id") || !strings.Contains(err.Error(), "seq 2") {
			t.Fatalf("refusal %+v: %v; want messages[0].toolCalls[0].id, call_0, seq 2", oe, err)
		}
		if th, err := e.GetThread(ctx, "tx"); err != nil || th.MessageCount != 3 {
			t.Fatalf("thread after the refusal: %+v, %v; want its 3 messages", th, err)
		}
		for _, m := range []engine.Message{result("Lyon: sunny 25C"), weatherCall("Oslo"), result("Oslo: snow -5C")} {
			if err := add(m); err != nil {
				t.Fatal(err)
			}
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "tx", RecentN: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range c.Messages {
			got = append(got, m.Content+string(callArgs(m)))
		}
		want := `A: what's the weather in Lyon?|{"city":"Lyon"}|Lyon: sunny 25C|B: what's the weather in Oslo?|{"city":"Oslo"}|Oslo: snow -5C`
		if strings.Join(got, "|") != want || len(c.MemCtx.Dropped) != 0 {
			t.Fatalf("context %s (dropped %+v), want %s", strings.Join(got, "|"), c.MemCtx.Dropped, want)
		}
	})
}

// callArgs is the arguments of m's first call, nil when it makes none.
func callArgs(m engine.ContextMessage) []byte {
	if len(m.ToolCalls) == 0 {
		return nil
	}
	return m.ToolCalls[0].Arguments
}

// TestAppendOpenCallIDCases: a call id answered before may be made again
// (a sequential loop against a server that numbers every answer's calls
// call_0, in separate appends and in one), an unanswered one may not,
// whether the earlier call is stored or earlier in the same request, and
// BeginDispatch is held to the same rule.
func TestAppendOpenCallIDCases(t *testing.T) {
	answer := func(id string) engine.Message {
		return engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "weather", Content: "ok"}
	}
	call := func(ids ...string) engine.Message {
		m := engine.Message{Role: engine.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: id, Name: "weather", Arguments: []byte(`{}`)})
		}
		return m
	}
	user := engine.Message{Role: engine.RoleUser, Content: "go on"}
	cases := []struct {
		name    string
		appends [][]engine.Message
		// refused: the refusal's field and the unanswered call's place, "" for none.
		refused string
	}{
		{"SequentialLoop", [][]engine.Message{{user, call("call_0")}, {answer("call_0")}, {user, call("call_0")}, {answer("call_0")}, {call("call_0")}}, ""},
		{"SequentialOneRequest", [][]engine.Message{{user, call("call_0"), answer("call_0"), call("call_0"), answer("call_0"), call("call_0")}}, ""},
		{"OtherIDOpen", [][]engine.Message{{call("call_0")}, {call("call_1")}}, ""},
		{"AnsweredInRequest", [][]engine.Message{{call("call_0")}, {answer("call_0"), call("call_0")}}, ""},
		{"Stored", [][]engine.Message{{call("call_0")}, {user, call("call_1", "call_0")}}, "messages[1].toolCalls[1].id @ seq 1"},
		{"InRequest", [][]engine.Message{{user, call("call_0"), user, call("call_0")}}, "messages[3].toolCalls[0].id @ messages[1]"},
		{"AnsweredOtherID", [][]engine.Message{{call("call_0", "call_1")}, {answer("call_1"), call("call_0")}}, "messages[1].toolCalls[0].id @ seq 1"},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var err error
				for i, ms := range tc.appends {
					_, err = e.Append(ctx, engine.AppendRequest{ThreadID: tc.name, ResourceID: "ana", Messages: ms})
					if err != nil && i < len(tc.appends)-1 {
						t.Fatalf("append %d: %v", i, err)
					}
				}
				got := ""
				if oe := (*engine.CallOpenError)(nil); errors.As(err, &oe) {
					got = oe.Field() + " @ " + where(oe)
				} else if err != nil {
					t.Fatalf("last append: %v, want nil or ErrCallOpen", err)
				}
				if got != tc.refused {
					t.Fatalf("last append refused %q (%v), want %q", got, err, tc.refused)
				}
			})
		}
		t.Run("BeginDispatch", func(t *testing.T) {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "d", ResourceID: "ana", Messages: []engine.Message{emailCall("bob")}}); err != nil {
				t.Fatal(err)
			}
			_, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "d", ResourceID: "ana", Message: emailCall("carol"), CallID: "call_0"})
			if !errors.Is(err, engine.ErrCallOpen) {
				t.Fatalf("dispatch of call_0 while call_0 is unanswered: %v, want ErrCallOpen", err)
			}
			if ds, err := e.Unsettled(ctx, "d", "ana"); err != nil || len(ds) != 0 {
				t.Fatalf("unsettled %+v, %v; want none (nothing begun)", ds, err)
			}
		})
	})
}

// where is the unanswered call of a refusal as the cases give it.
func where(oe *engine.CallOpenError) string {
	if oe.Seq == 0 {
		return fmt.Sprintf("messages[%d]", oe.Earlier)
	}
	return fmt.Sprintf("seq %d", oe.Seq)
}

// TestOpenCallWindow: an Append looks for an unanswered call with the same
// id among the thread's last engine.OpenCallWindow messages only (no index
// holds call ids, and the whole thread cost a fresh id's append a read of
// every tool-calling message). A call left unanswered within the window
// refuses its id; one older than the window does not, and the new call's
// result answers the new call.
func TestOpenCallWindow(t *testing.T) {
	for _, c := range []struct {
		between int
		refused bool
	}{{engine.OpenCallWindow - 2, true}, {engine.OpenCallWindow, false}} {
		t.Run(fmt.Sprintf("between-%d", c.between), func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir()})
			add := func(ms ...engine.Message) error {
				_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms})
				return err
			}
			ms := []engine.Message{weatherCall("Lyon")} // never answered
			for i := range c.between {
				ms = append(ms, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("turn %d", i)})
			}
			if err := add(ms...); err != nil {
				t.Fatal(err)
			}
			err := add(weatherCall("Oslo"))
			if got := errors.Is(err, engine.ErrCallOpen); got != c.refused {
				t.Fatalf("call_0 again %d messages after the unanswered one: %v, want refused %v", c.between, err, c.refused)
			}
			if c.refused {
				return
			}
			if err := add(engine.Message{Role: engine.RoleTool, ToolCallID: "call_0", Name: "weather", Content: "Oslo: snow -5C"}); err != nil {
				t.Fatal(err)
			}
			lc, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 2})
			if err != nil {
				t.Fatal(err)
			}
			n := len(lc.Messages)
			if n < 2 || string(callArgs(lc.Messages[n-2])) != `{"city":"Oslo"}` || lc.Messages[n-1].Content != "Oslo: snow -5C" {
				t.Fatalf("the last two messages of %+v: want the Oslo call and its result", lc.Messages)
			}
		})
	}
}
