package engine

import (
	"context"
	"encoding/json"
	"fmt"

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
	// Where it starts is found from the seqs, roles and tool calls alone;
	// only a pending turn longer than the window is then read whole (by
	// seq, so the same rows: nothing is erased inside the fence, and
	// appends take later seqs).
	refs, err := e.ms.RecentTurns(ctx, threadID, observe.MaxPendingTurns)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	turns := make([]observe.Turn, len(refs))
	for i, r := range refs {
		turns[i] = observe.Turn{Seq: r.Seq, Role: r.Role}
		if r.ToolCalls == "" {
			continue
		}
		var calls []ToolCall
		if err := json.Unmarshal([]byte(r.ToolCalls), &calls); err != nil {
			return nil, fmt.Errorf("engine: decode tool calls of %s seq %d: %w", threadID, r.Seq, err)
		}
		for _, c := range calls {
			turns[i].ToolCalls = append(turns[i].ToolCalls, observe.ToolCall{ID: c.ID})
		}
	}
	start := observe.PendingStart(turns)
	if len(refs)-start <= len(recent) {
		return recent, nil
	}
	tail, err := messagesFromRows(e.ms.Messages(ctx, threadID, refs[start].Seq, refs[len(refs)-1].Seq))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return tail, nil
}
