package engine

import (
	"context"

	"github.com/mnemo-go/mnemo/observe"
)

// withPendingTurn extends the recent window recent (the thread's newest
// messages, seq order; the window asked for n of them) so that it holds the
// whole pending turn (observe.PendingStart): the user turns no assistant
// answer follows yet, with the tool calls made for them so far. The model
// must read the question as it was asked, whatever RecentN is; the observer
// never distils it.
//
// A window that holds an answer already holds everything after it, and one
// shorter than asked holds the whole thread: both are returned as they are,
// without a query. Otherwise the newest observe.MaxPendingTurns messages are
// read to find where the pending turn starts.
func (e *Engine) withPendingTurn(ctx context.Context, threadID string, recent []Message, n int) ([]Message, error) {
	if len(recent) < n || len(recent) >= observe.MaxPendingTurns {
		return recent, nil
	}
	for _, m := range recent {
		if m.Role == RoleAssistant && len(m.ToolCalls) == 0 {
			return recent, nil
		}
	}
	tail, err := e.recentMessages(ctx, threadID, observe.MaxPendingTurns)
	if err != nil {
		return nil, err
	}
	turns := make([]observe.Turn, len(tail))
	for i, m := range tail {
		turns[i] = observe.Turn{Seq: m.Seq, Role: m.Role}
		for _, c := range m.ToolCalls {
			turns[i].ToolCalls = append(turns[i].ToolCalls, observe.ToolCall{ID: c.ID})
		}
	}
	if start := observe.PendingStart(turns); len(tail)-start > len(recent) {
		return tail[start:], nil
	}
	return recent, nil
}
