package engine

import (
	"context"
)

// UnpairedResult is a tool message of an append whose ToolCallID answers
// no call of the thread, by the pairing rule (pairing.go): no assistant
// message before it makes that call, or each one that does is answered
// already (a result answers the nearest earlier call with its id that no
// other result answers). Append stores it, as a transcript's is, but
// every context leaves it out (memctx reason
// journal.ReasonOrphanToolResult).
type UnpairedResult struct {
	// Index is the message's index in AppendRequest.Messages: the first
	// one, when the request gives the same message twice.
	Index int
	// Seq is the message's seq in the thread.
	Seq int64
	// ToolCallID is the call id it gave.
	ToolCallID string
}

// MaxPairLookups bounds the stored-thread lookups one Append makes to
// find the calls of its tool messages (AppendResult.Unpaired): a result
// whose call is earlier in the same request needs none; past the bound,
// the request's other results are not checked
// (AppendResult.UnpairedUnchecked). A lookup for a result that answers no
// call reads the thread's tool-calling messages (no index holds call
// ids): 1000 such results in one append would read a thread of 10,000
// calls a thousand times.
const MaxPairLookups = 16

// unpairedResults returns the tool messages of rows (the request's, stored
// at seqs of the thread) that answer no call, in request order, each
// message once (by seq: a message given twice is one), and how many tool
// messages it did not check. It runs once the append is committed: the
// request's own messages are walked first, then the stored thread is read,
// at most MaxPairLookups times. A lookup that fails (ctx ended, the
// database gone) ends the check without an error: the append stands, and
// the messages not checked are counted.
func (e *Engine) unpairedResults(ctx context.Context, thread string, rows []row, seqs []int64) (out []UnpairedResult, unchecked int) {
	if !hasToolResult(rows) {
		return nil, 0
	}
	set := &turnSet{byKey: make(map[turnKey]*turn, len(rows)), gone: map[turnKey]bool{}}
	first := make(map[int64]int, len(rows)) // seq -> its first index in rows
	for i := range rows {
		if _, ok := first[seqs[i]]; ok {
			continue
		}
		first[seqs[i]] = i
		m := rows[i].Message
		m.ThreadID, m.Seq = thread, seqs[i]
		set.add(&turn{Message: m})
	}
	p := e.newPairer()
	lookups := 0
	for i, r := range rows {
		if r.Role != RoleTool || first[seqs[i]] != i {
			continue
		}
		t := set.byKey[turnKey{thread, seqs[i]}]
		if _, local := localCall(set, t); !local {
			if lookups == MaxPairLookups || ctx.Err() != nil {
				unchecked++
				continue
			}
			lookups++
		}
		c, err := p.callOf(ctx, set, t)
		if err != nil {
			unchecked++
			lookups = MaxPairLookups // no further lookup: the store failed
			continue
		}
		if c == nil {
			out = append(out, UnpairedResult{Index: i, Seq: seqs[i], ToolCallID: r.ToolCallID})
		}
	}
	return out, unchecked
}

// hasToolResult reports whether one of rows is a tool message.
func hasToolResult(rows []row) bool {
	for _, r := range rows {
		if r.Role == RoleTool {
			return true
		}
	}
	return false
}
