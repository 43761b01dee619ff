package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
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
// calls a thousand times. The lookups run in the append's transaction,
// holding the store's write lock: one for a result whose call is 1 to 40
// turns back cost ~0.1-0.2x a plain append, one for a result answering no
// call in a thread of 1,000 calls ~13-16x (BenchmarkAppendToolResult).
const MaxPairLookups = 16

// unpairedResults returns the tool messages of rows (the request's, stored
// at seqs of the thread) that answer no call, in request order, each
// message once (by seq: a message given twice is one), and how many tool
// messages it did not check (past MaxPairLookups). It runs in the
// append's transaction, once the request is stored, so it answers for the
// thread as the append commits it: an erasure or expiry that commits
// later cannot change the answer. The request's own messages are walked
// first (localCall), then the stored thread is read (msgstore.OpenCall),
// at most MaxPairLookups times. A lookup's error is returned: the
// transaction rolls back, as for any of its reads.
func (e *Engine) unpairedResults(ctx context.Context, tx *store.Tx, thread string, rows []row, seqs []int64) (out []UnpairedResult, unchecked int, err error) {
	if !hasToolResult(rows) {
		return nil, 0, nil
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
	lookups := 0
	for i, r := range rows {
		if r.Role != RoleTool || first[seqs[i]] != i {
			continue
		}
		c, paired := localCall(set, set.byKey[turnKey{thread, seqs[i]}])
		if paired { // decided by the request: paired when it found the call
			paired = c != nil
		} else {
			if lookups == MaxPairLookups {
				unchecked++
				continue
			}
			lookups++
			if _, paired, err = e.ms.OpenCall(ctx, tx, thread, r.ToolCallID, 0, seqs[i]); err != nil {
				return nil, 0, fmt.Errorf("engine: %w", err)
			}
		}
		if !paired {
			out = append(out, UnpairedResult{Index: i, Seq: seqs[i], ToolCallID: r.ToolCallID})
		}
	}
	return out, unchecked, nil
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
