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
// (AppendResult.UnpairedUnchecked). Each lookup reads at most the
// UnpairedWindow messages before its result, in the append's transaction,
// holding the store's write lock: one for a result whose call is 1 to 40
// turns back cost ~0.1-0.2x a plain append (BenchmarkAppendToolResult).
const MaxPairLookups = 16

// UnpairedWindow is how many of the thread's messages before a tool
// result an Append reads to find the call it answers (the seqs
// [seq-UnpairedWindow, seq)). The window was chosen when no index held the
// ids of calls made and the lookup read each tool-calling message it
// covered: over the whole thread, a result answering no call cost ~1 s an
// append at 50,000 calls, under the write lock (plain 0.45 ms); with the
// window, 0.6 ms (BenchmarkAppendToolResult, stray/calls-N, one run at
// load 12-30, 2026-12-07; BENCHMARKS.md). The lookup now seeks the index
// of calls made (msgstore.OpenCall), and still keeps to the window. When the
// call is not in the window, the result is unpaired only if the window
// reaches the thread's first message or holds an earlier result for its id
// (a call before that one is answered); otherwise it is not checked
// (AppendResult.UnpairedUnchecked), never named unpaired on a guess. A
// result answers a call of the last few turns: an agent's calls are
// answered within its loop.
const UnpairedWindow = OpenCallWindow

// unpairedResults returns the tool messages of rows (the request's, stored
// at seqs of the thread) that answer no call, in request order, each
// message once (by seq: a message given twice is one), and how many tool
// messages it did not check (past MaxPairLookups, or undecided by the
// window: storedCall). It runs in the
// append's transaction, once the request is stored, so it answers for the
// thread as the append commits it: an erasure or expiry that commits
// later cannot change the answer. The request's own messages are walked
// first (localCall), then the stored thread's UnpairedWindow messages
// before the result are read (storedCall), at most MaxPairLookups times. A lookup's error is returned: the
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
			var checked bool
			if paired, checked, err = e.storedCall(ctx, tx, thread, r.ToolCallID, seqs[i]); err != nil {
				return nil, 0, err
			}
			if !checked {
				unchecked++
				continue
			}
		}
		if !paired {
			out = append(out, UnpairedResult{Index: i, Seq: seqs[i], ToolCallID: r.ToolCallID})
		}
	}
	return out, unchecked, nil
}

// storedCall reports, in tx, whether a call of the thread stored among
// the UnpairedWindow messages before seq is one the result for callID at
// seq answers (paired), and whether that answers for the whole thread
// (checked): it does when the call is found, when the window reaches the
// thread's first message, or when it holds an earlier result for callID
// (a call before that result is answered). At most two reads: OpenCall
// over the window, and LastResult through the index of results.
func (e *Engine) storedCall(ctx context.Context, tx *store.Tx, thread, callID string, seq int64) (paired, checked bool, err error) {
	since := seq - UnpairedWindow
	if _, paired, err = e.ms.OpenCall(ctx, tx, thread, callID, since, seq); err != nil {
		return false, false, fmt.Errorf("engine: %w", err)
	}
	if paired || since <= 1 {
		return paired, true, nil
	}
	last, ok, err := e.ms.LastResult(ctx, tx, thread, callID, seq)
	if err != nil {
		return false, false, fmt.Errorf("engine: %w", err)
	}
	return false, ok && last >= since, nil
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
