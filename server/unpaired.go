package server

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// UnpairedResult is a tool message of an append whose toolCallId answers
// no call of the thread: no assistant message before it makes that call,
// or each one that does is answered already (by the pairing rule, the
// nearest earlier call with no other result for its id in between). It
// is stored, as a transcript's is, but every context leaves it out
// (memctx reason orphan-tool-result).
type UnpairedResult struct {
	// Index (index) is the message's index in the request's messages.
	Index int `json:"index" jsonschema:"description=the tool message's index in the request's messages"`
	// ToolCallID (toolCallId) is the call id it gave.
	ToolCallID string `json:"toolCallId" jsonschema:"description=the toolCallId it gave"`
	// Detail (detail) says why, in words.
	Detail string `json:"detail" jsonschema:"description=why it answers no call"`
}

// MaxPairLookups bounds the stored-thread lookups (Engine.AnsweredCall)
// one append makes to find the calls of its tool messages: a result
// whose call is earlier in the same request needs none; past the bound,
// the rest of the request's results are not checked. A lookup for a
// result that answers no call reads the thread's tool-calling messages
// (no index holds call ids): 1000 such results in one append would read
// a thread of 10,000 calls a thousand times.
const MaxPairLookups = 16

// unpairedResults returns the tool messages of msgs (a request stored at
// seqs of the thread) that answer no call, checked in seq order against
// the request itself and then, at most MaxPairLookups times, the stored
// thread. The append is committed: a lookup that fails (the client gone,
// the database unreachable) ends the check without an error, and the
// answer names only what was found before it.
func (t Tenant) unpairedResults(ctx context.Context, thread string, msgs []engine.Message, seqs []int64) []UnpairedResult {
	bySeq := make(map[int64]int, len(msgs))
	for i := range msgs {
		bySeq[seqs[i]] = i
	}
	var out []UnpairedResult
	lookups := 0
	for i, m := range msgs {
		if m.Role != engine.RoleTool {
			continue
		}
		paired, known := pairedInRequest(msgs, bySeq, seqs[i], m.ToolCallID)
		if !known {
			if lookups == MaxPairLookups {
				break
			}
			lookups++
			var err error
			if _, paired, err = t.Engine.AnsweredCall(ctx, thread, m.ToolCallID, seqs[i]); err != nil {
				break
			}
		}
		if !paired {
			out = append(out, UnpairedResult{Index: i, ToolCallID: m.ToolCallID, Detail: fmt.Sprintf(
				"no unanswered call %q before it in thread %q: it is stored, but a context leaves it out (memctx reason orphan-tool-result); append the assistant message making the call first, or give the call's id", m.ToolCallID, thread)})
		}
	}
	return out
}

// pairedInRequest walks back from seq through the request's own messages
// (bySeq: seq to index in msgs) while their seqs run on: the nearest call
// callID answers the result at seq (paired), another result for callID
// first, or the thread's start, means none does; known is false when the
// walk left the request before it decided.
func pairedInRequest(msgs []engine.Message, bySeq map[int64]int, seq int64, callID string) (paired, known bool) {
	for s := seq - 1; s > 0; s-- {
		j, ok := bySeq[s]
		if !ok {
			return false, false
		}
		m := msgs[j]
		if m.Role == engine.RoleTool && m.ToolCallID == callID {
			return false, true
		}
		if m.Role == engine.RoleAssistant {
			for _, tc := range m.ToolCalls {
				if tc.ID == callID {
					return true, true
				}
			}
		}
	}
	return false, true // the thread's first message
}
