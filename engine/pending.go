package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/observe"
)

// withPendingTurn extends the recent window recent (the thread's newest
// messages, seq order; the window asked for n of them, and read size
// bytes of text) so that it holds the whole pending turn
// (observe.PendingStart): the user turns no assistant answer follows yet,
// with the tool calls made for them so far. The model must read the
// question as it was asked, whatever RecentN is; the observer never
// distils it. It returns the window and its bytes.
//
// A window that holds an answer already holds everything after it, and one
// shorter than asked holds the whole thread: both are returned as they are,
// without a query. Otherwise the newest observe.MaxPendingTurns messages are
// read (seqs, roles and tool calls) to find where the pending turn starts,
// and the part of it older than the window is read within what
// Limits.MaxAnswerBytes leaves of size: more is an *AnswerTooLargeError
// naming the pending turn's length (Pending), which no request field
// shrinks.
func (e *Engine) withPendingTurn(ctx context.Context, threadID string, recent []Message, n, size int) ([]Message, int, error) {
	if len(recent) < n || len(recent) >= observe.MaxPendingTurns {
		return recent, size, nil
	}
	for _, m := range recent {
		if m.Role == RoleAssistant && len(m.ToolCalls) == 0 {
			return recent, size, nil
		}
	}
	refs, err := e.ms.RecentTurns(ctx, threadID, observe.MaxPendingTurns)
	if err != nil {
		return nil, 0, fmt.Errorf("engine: %w", err)
	}
	start := observe.PendingStart(pendingTurns(refs))
	if len(refs)-start <= len(recent) {
		return recent, size, nil
	}
	// The rows before the window, by seq (nothing is erased inside the
	// fence, and appends take later seqs), within what the window left.
	bound := 0
	if limit := e.limits.MaxAnswerBytes; limit > 0 {
		bound = max(limit-size, 1)
	}
	older, err := e.ms.MessagesWithin(ctx, threadID, refs[start].Seq, recent[0].Seq-1, bound)
	more := 0
	for _, r := range older {
		more += r.Size()
	}
	if errors.Is(err, msgstore.ErrTooLarge) || bound > 0 && size+more > e.limits.MaxAnswerBytes {
		return nil, 0, &AnswerTooLargeError{Limit: e.limits.MaxAnswerBytes, Pending: len(refs) - start}
	}
	head, err := messagesFromRows(older, err)
	if err != nil {
		return nil, 0, fmt.Errorf("engine: %w", err)
	}
	return append(head, recent...), size + more, nil
}

// pendingTurns is refs as the observer's turns: what
// observe.PendingStart reads, seqs, roles and whether an assistant turn
// makes tool calls (one stands for its calls: their ids are not read).
func pendingTurns(refs []msgstore.TurnRef) []observe.Turn {
	turns := make([]observe.Turn, len(refs))
	for i, r := range refs {
		turns[i] = observe.Turn{Seq: r.Seq, Role: r.Role}
		if r.Calls {
			turns[i].ToolCalls = []observe.ToolCall{{}}
		}
	}
	return turns
}
