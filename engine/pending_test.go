package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
)

// recordingModel is echoModel that keeps every conversation it was sent.
type recordingModel struct {
	mu   sync.Mutex
	sent []string
}

func (m *recordingModel) ID() string { return "recording" }

func (m *recordingModel) Complete(ctx context.Context, p observe.Prompt) (string, error) {
	m.mu.Lock()
	m.sent = append(m.sent, p.User)
	m.mu.Unlock()
	return echoModel{}.Complete(ctx, p)
}

func (m *recordingModel) all() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.sent, "\n")
}

// TestPendingTurnLongerThanWindow: without an observer, a pending turn
// longer than RecentN (two user turns and a tool loop for them, after an
// answer) is the window, whole and in order, with the stored messages'
// contents, names and tool calls (RecentN -1: no window, the pending turn's
// included); once answered, the window is RecentN again. (LoadContext finds where the pending turn starts from the
// messages' seqs, roles and tool calls, then reads the turn by seq.)
func TestPendingTurnLongerThanWindow(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{RecentN: 2})
		call := []engine.ToolCall{{ID: "call_0", Name: "timetable", Arguments: json.RawMessage(`{"from":"Porto"}`)}}
		msgs := []engine.Message{
			{Role: "user", Content: "old question"},
			{Role: "assistant", Content: "old answer"},
			{Role: "user", Content: "P1 trains from Porto?", Name: "ann"},
			{Role: "user", Content: "P2 is the 9:05 direct?"},
			{Role: "assistant", ToolCalls: call},
			{Role: "tool", ToolCallID: "call_0", Name: "timetable", Content: "P4 9:05 direct"},
			{Role: "assistant", ToolCalls: call},
			{Role: "tool", ToolCallID: "call_0", Name: "timetable", Content: "P6 17:09 direct"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if got := seqs(c.Messages); got != "3,4,5,6,7,8," {
			t.Fatalf("window seqs %s, want the pending turn 3,4,5,6,7,8,", got)
		}
		// A negative RecentN turns the window off, its pending turn too
		// (recall alone), as docs/cli.md says.
		if off, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: -1}); err != nil || len(off.Messages) != 0 {
			t.Fatalf("RecentN -1: window %s, %v; want none", seqs(off.Messages), err)
		}
		for i, m := range c.Messages {
			want := msgs[i+2]
			if m.Content != want.Content || m.Name != want.Name || m.Role != want.Role || len(m.ToolCalls) != len(want.ToolCalls) || m.Reason != "" {
				t.Errorf("message %d = %+v, want %+v", i, m, want)
			}
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{{Role: "assistant", Content: "yes"}}}); err != nil {
			t.Fatal(err)
		}
		if c, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"}); err != nil || seqs(c.Messages) != "7,8,9," {
			t.Fatalf("answered: window %s, %v; want 7,8,9, (the window of two extends back to the call of 8)", seqs(c.Messages), err)
		}
	})
}

// TestPendingTurnStaysVerbatim is issue 12 item 9: the user turns that no
// assistant answer follows yet stay verbatim in the recent window whatever
// RecentN is, and the observer never distils them — also while the
// assistant is in the middle of a tool loop for them.
func TestPendingTurnStaysVerbatim(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		model := &recordingModel{}
		e := be.MustOpen(t, engine.Config{RecentN: 1, Observe: &engine.ObserveConfig{Model: model, Threshold: 1, SyncOnLoad: true}})
		msgs := []engine.Message{
			{Role: "user", Content: "I am planning a trip to Lisbon in May"},
			{Role: "assistant", Content: "Lisbon in May is lovely."},
			{Role: "user", Content: "Book the Alfama hotel for three nights"},
			{Role: "assistant", Content: "Booked: Alfama, 3 nights."},
			{Role: "user", Content: "PENDING-ONE also, what about trains from Porto?"},
			{Role: "user", Content: "PENDING-TWO and is the 9:05 train direct?"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		check := func(t *testing.T, want string) {
			t.Helper()
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, e, c, 1)
			var got []string
			for _, m := range c.Messages {
				if m.Reason != "" {
					t.Fatalf("seq %d is recalled, want every pending turn recent", m.Seq)
				}
				got = append(got, m.Content)
			}
			if s := strings.Join(got, " | "); !strings.HasPrefix(s, want) {
				t.Fatalf("context %q, want it to start with %q", s, want)
			}
			if strings.Contains(model.all(), "PENDING") {
				t.Fatalf("the observer was sent the pending turn:\n%s", model.all())
			}
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t"})
			if err != nil || len(obs) == 0 {
				t.Fatalf("observations %v, %v: the answered turns should be observed", obs, err)
			}
			for _, o := range obs {
				if strings.Contains(o.Content, "PENDING") || o.ToSeq >= 5 {
					t.Fatalf("observation %d..%d %q distils the pending turn", o.FromSeq, o.ToSeq, o.Content)
				}
			}
		}
		t.Run("TwoUserTurns", func(t *testing.T) {
			check(t, "PENDING-ONE also, what about trains from Porto? | PENDING-TWO")
		})
		t.Run("ToolLoop", func(t *testing.T) {
			// The assistant works on the question with tools; no answer yet.
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{
				{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "timetable", Arguments: json.RawMessage(`{"from":"Porto"}`)}}},
				{Role: "tool", ToolCallID: "call_0", Name: "timetable", Content: "PENDING-TOOL 9:05 direct, 2h50"},
				{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "timetable", Arguments: json.RawMessage(`{"from":"Lisbon"}`)}}},
				{Role: "tool", ToolCallID: "call_0", Name: "timetable", Content: "PENDING-TOOL 17:09 direct"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			check(t, "PENDING-ONE also, what about trains from Porto? | PENDING-TWO")
		})
		t.Run("Answered", func(t *testing.T) {
			// Once answered, the window is RecentN again and the old question
			// may be distilled.
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{
				{Role: "assistant", Content: "Yes, the 9:05 is direct."}}}); err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", RecentN: 1})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, e, c, 1)
			if got := seqs(c.Messages); got != "11," {
				t.Fatalf("seqs %s, want 11,", got)
			}
		})
	})
}

func TestPendingStart(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		u, a := observe.Turn{Role: "user"}, observe.Turn{Role: "assistant"}
		call := observe.Turn{Role: "assistant", ToolCalls: []observe.ToolCall{{ID: "c"}}}
		res := observe.Turn{Role: "tool"}
		for _, tc := range []struct {
			name  string
			turns []observe.Turn
			want  int
		}{
			{"Empty", nil, 0},
			{"Answered", []observe.Turn{u, a}, 2},
			{"OneQuestion", []observe.Turn{u, a, u}, 2},
			{"ThreeMessages", []observe.Turn{u, a, u, u, u}, 2},
			{"ToolLoop", []observe.Turn{u, a, u, call, res, call, res}, 2},
			{"AnswerAfterTools", []observe.Turn{u, call, res, a}, 4},
			{"NoAnswerEver", []observe.Turn{u, u, u}, 2},
			{"NoAnswerToolLoop", []observe.Turn{u, u, call, res}, 1},
			{"OnlyTools", []observe.Turn{call, res}, 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := observe.PendingStart(tc.turns); got != tc.want {
					t.Fatalf("PendingStart = %d, want %d", got, tc.want)
				}
			})
		}
		long := []observe.Turn{a}
		for range 100 {
			long = append(long, u)
		}
		if got, want := observe.PendingStart(long), len(long)-observe.MaxPendingTurns; got != want {
			t.Fatalf("long: %d, want %d (the cap)", got, want)
		}
	})
}
