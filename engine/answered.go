package engine

import (
	"context"
	"fmt"
)

// AnsweredCall reports which call the tool result for callID stored at
// seq resultSeq of the thread answers, by the pairing rule (see pairing.go):
// seq is that of the latest assistant message before it making a call
// callID with no other result for callID in between; ok is false when no
// such message exists, so that the result answers no call and every
// context leaves it out (memctx reason journal.ReasonOrphanToolResult).
// Append stores such a result (a transcript may hold one); a caller that
// wants to tell its client asks here after the append.
//
// The thread's assistant messages back to the call, or for an orphan
// back to the previous result for callID (the whole thread when there is
// none), are read: no index holds the ids of calls made. Errors are the
// store's, wrapped.
func (e *Engine) AnsweredCall(ctx context.Context, threadID, callID string, resultSeq int64) (seq int64, ok bool, err error) {
	m, ok, err := e.ms.ToolCall(ctx, threadID, callID, resultSeq)
	if err != nil {
		return 0, false, fmt.Errorf("engine: %w", err)
	}
	return m.Seq, ok, nil
}
