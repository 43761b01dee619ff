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
// Two index seeks, whatever the thread's length: the last result for
// callID before resultSeq (an index of results by call id), then the last
// call callID after it in the index of calls made (message_calls, kept by
// triggers on the messages; SQLite schema 17, Postgres 15). Before that
// index, an orphan read every assistant message of the thread back to the
// previous result for callID: ~2 s a LoadContext holding one at 50,000
// calls (BenchmarkLoadContextOrphan). Errors are the store's, wrapped.
func (e *Engine) AnsweredCall(ctx context.Context, threadID, callID string, resultSeq int64) (seq int64, ok bool, err error) {
	m, ok, err := e.ms.ToolCall(ctx, threadID, callID, resultSeq)
	if err != nil {
		return 0, false, fmt.Errorf("engine: %w", err)
	}
	return m.Seq, ok, nil
}
