package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestAnsweredCallAgreesWithScan: on random threads (a few reused call
// ids, as agents reuse call_0; calls answered, answered twice, never;
// results answering nothing; messages erased between appends), the call
// AnsweredCall finds for every stored tool result (through message_calls,
// the calls-made index the triggers on messages keep) is the one the
// pairing rule gives over the thread as read back whole: the latest
// assistant message before the result making its call, with no other
// result for the id in between. On each backend.
func TestAnsweredCallAgreesWithScan(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, b enginetest.Backend) {
		e := b.MustOpen(t, engine.Config{})
		for n := range 12 {
			rng := rand.New(rand.NewPCG(uint64(n), 62))
			thread := fmt.Sprintf("t%d", n)
			for round := range 3 {
				appendRandomTurns(t, e, rng, thread, 10+rng.IntN(40))
				if round < 2 {
					eraseSome(t, e, rng, thread)
				}
			}
			checkAnswered(t, e, thread)
		}
	})
}

// appendRandomTurns appends n random messages to thread, in one request.
// A call is made only with an id no call of the thread has open (Append
// refuses another: refuseOpenCalls), as the thread stands after erasures.
func appendRandomTurns(t *testing.T, e *engine.Engine, rng *rand.Rand, thread string, n int) {
	t.Helper()
	ids := []string{"call_0", "call_1", "call_2", "call_3"}
	open := map[string]bool{}
	for _, m := range readThread(t, e, thread) {
		noteCalls(open, m)
	}
	var ms []engine.Message
	for range n {
		var m engine.Message
		switch rng.IntN(3) {
		case 0:
			m = engine.Message{Role: engine.RoleAssistant}
			for _, i := range rng.Perm(len(ids))[:1+rng.IntN(2)] {
				if !open[ids[i]] {
					m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: ids[i], Name: "f", Arguments: json.RawMessage(`{}`)})
				}
			}
			if len(m.ToolCalls) == 0 {
				m = engine.Message{Role: engine.RoleAssistant, Content: "a"}
			}
		case 1:
			m = engine.Message{Role: engine.RoleTool, ToolCallID: ids[rng.IntN(len(ids))], Name: "f", Content: "r"}
		default:
			m = engine.Message{Role: engine.RoleUser, Content: "u"}
		}
		noteCalls(open, m)
		ms = append(ms, m)
	}
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: ms}); err != nil {
		t.Fatal(err)
	}
}

// noteCalls records in open the calls m makes and the call it answers.
func noteCalls(open map[string]bool, m engine.Message) {
	for _, c := range m.ToolCalls {
		open[c.ID] = true
	}
	if m.Role == engine.RoleTool {
		open[m.ToolCallID] = false
	}
}

// eraseSome deletes about a fifth of thread's messages.
func eraseSome(t *testing.T, e *engine.Engine, rng *rand.Rand, thread string) {
	t.Helper()
	var ids []string
	for _, m := range readThread(t, e, thread) {
		if rng.IntN(5) == 0 {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	if _, err := e.DeleteMessages(context.Background(), ids...); err != nil {
		t.Fatal(err)
	}
}

func readThread(t *testing.T, e *engine.Engine, thread string) []engine.Message {
	t.Helper()
	ms, err := e.Messages(context.Background(), thread, 0, 1<<40)
	if errors.Is(err, engine.ErrThreadNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// checkAnswered compares AnsweredCall with the pairing rule applied to the
// whole thread, for every tool message of it.
func checkAnswered(t *testing.T, e *engine.Engine, thread string) {
	t.Helper()
	ms := readThread(t, e, thread)
	for i, r := range ms {
		if r.Role != engine.RoleTool {
			continue
		}
		var want int64
	scan:
		for j := i - 1; j >= 0; j-- {
			switch m := ms[j]; {
			case m.Role == engine.RoleTool && m.ToolCallID == r.ToolCallID:
				break scan
			case m.Role == engine.RoleAssistant && makesCall(m, r.ToolCallID):
				want = m.Seq
				break scan
			}
		}
		got, ok, err := e.AnsweredCall(context.Background(), thread, r.ToolCallID, r.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			got = 0
		}
		if got != want {
			t.Errorf("%s: the result for %s at seq %d answers the call at seq %d (0: none), want %d", thread, r.ToolCallID, r.Seq, got, want)
		}
	}
}

func makesCall(m engine.Message, id string) bool {
	for _, c := range m.ToolCalls {
		if c.ID == id {
			return true
		}
	}
	return false
}
