package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// A tool result answers the nearest earlier call with its id (the pairing
// rule), and a settlement is appended whenever it arrives. So while a
// dispatch is pending its call must stay the thread's latest call with its
// id, or its late settlement would answer another call (a model numbering
// its calls per turn, call_0, reuses ids). Three refusals keep it so:
//
//   - refusePendingCalls: an append (BeginDispatch's too) whose new
//     assistant message makes a call while a dispatch with that call id is
//     pending: ErrDispatchPending.
//   - laterCall in BeginDispatch: a dispatch begun on a stored call that a
//     later message makes again: ErrConflict.
//   - laterCall in SettleDispatch: a settlement of a dispatch whose call was
//     answered by a plain tool message and then made again: ErrConflict.

// refusePendingCalls refuses, with a *DispatchPendingError, an append whose
// new messages make a call while a dispatch of the thread with that call id
// is pending. rows are the append's, seqs their seqs (res.Seqs); the new
// ones come after lastSeq, the thread's last seq before the append. A tool
// message earlier in the append answers the dispatch first.
func (e *Engine) refusePendingCalls(ctx context.Context, tx *store.Tx, thread string, rows []row, seqs []int64, lastSeq int64) error {
	calls := false
	for i, r := range rows {
		calls = calls || (seqs[i] > lastSeq && len(r.ToolCalls) > 0)
	}
	if !calls {
		return nil
	}
	pending, err := e.journal.PendingDispatches(ctx, tx, thread, lastSeq)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if len(pending) == 0 {
		return nil
	}
	byCall := make(map[string]journal.Dispatch, len(pending))
	for _, d := range pending {
		if old, ok := byCall[d.CallID]; !ok || d.Seq < old.Seq {
			byCall[d.CallID] = d
		}
	}
	seen := make(map[int64]bool, len(rows)) // a message repeated in the append counts once
	for i, r := range rows {
		if seqs[i] <= lastSeq || seen[seqs[i]] {
			continue
		}
		seen[seqs[i]] = true
		if r.Role == RoleTool {
			delete(byCall, r.ToolCallID)
			continue
		}
		for _, tc := range r.ToolCalls {
			if d, ok := byCall[tc.ID]; ok {
				return &DispatchPendingError{Index: i, CallID: tc.ID, RunID: d.RunID, Seq: d.Seq}
			}
		}
	}
	return nil
}

// OpenCallWindow is how many of a thread's last stored messages an Append
// of a tool call looks through for an unanswered call with the same id
// (ErrCallOpen). No index holds the ids of calls made, so looking through
// the whole thread cost every append of a fresh id (OpenAI's call_… ids)
// one read of every tool-calling message: a call and its result appended
// one after the other took 27–31 ms at 10,000 answered calls against
// 0.7–0.9 ms before the check; with the window 0.7–0.9 ms at 100 and at
// 10,000 (BenchmarkAppendOpenCall, one run, 2026-12-05).
// Two loops whose calls reuse an id interleave within a few turns; an
// unanswered call older than the window (a tool abandoned long ago) does
// not refuse its id: the new call's result answers the new call (the
// pairing rule takes the nearest), and the old one stays unpaired as
// before.
const OpenCallWindow = 64

// refuseOpenCalls refuses, with a *CallOpenError, an append whose new
// assistant message makes a call while an earlier call of the thread with
// that id is not answered: stored among the OpenCallWindow messages before
// lastSeq, or earlier in the append, with no tool message for the id after
// it. Its result would answer the new call (the pairing rule). rows, seqs
// and lastSeq are refusePendingCalls'.
func (e *Engine) refuseOpenCalls(ctx context.Context, tx *store.Tx, thread string, rows []row, seqs []int64, lastSeq int64) error {
	open := map[string]int{} // call id -> request message making it, unanswered; -1: answered in the request
	seen := make(map[int64]bool, len(rows))
	for i, r := range rows {
		if seqs[i] <= lastSeq || seen[seqs[i]] {
			continue
		}
		seen[seqs[i]] = true
		if r.Role == RoleTool {
			open[r.ToolCallID] = -1
			continue
		}
		for j, tc := range r.ToolCalls {
			earlier, inRequest := open[tc.ID]
			if !inRequest {
				seq, ok, err := e.ms.OpenCall(ctx, tx, thread, tc.ID, lastSeq+1-OpenCallWindow, lastSeq+1)
				if err != nil {
					return fmt.Errorf("engine: %w", err)
				}
				if ok {
					return &CallOpenError{Index: i, CallIndex: j, CallID: tc.ID, Seq: seq}
				}
			} else if earlier >= 0 {
				return &CallOpenError{Index: i, CallIndex: j, CallID: tc.ID, Earlier: earlier}
			}
			open[tc.ID] = i
		}
	}
	return nil
}

// laterCall reports, in tx, whether an assistant message after seq in the
// thread makes call callID.
func (e *Engine) laterCall(ctx context.Context, tx *store.Tx, thread, callID string, seq int64) (bool, error) {
	n, err := e.ms.CountCalls(ctx, tx, msgstore.CallQuery{ThreadID: thread, CallID: callID, BeforeSeq: math.MaxInt64, AfterSeq: seq})
	if err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	return n > 0, nil
}

// refuseMadeAgain returns the ErrConflict refusing the settlement of d when
// d is not settled and a later message makes its call again (after a tool
// message answered it): the settlement would answer that call. It returns
// nil when the settlement may be stored, and err when the read fails.
func (e *Engine) refuseMadeAgain(ctx context.Context, tx *store.Tx, d *Dispatch) (refusal, err error) {
	if d.Settled || d.Seq == 0 {
		return nil, nil
	}
	later, err := e.laterCall(ctx, tx, d.ThreadID, d.CallID, d.Seq)
	if err != nil || !later {
		return nil, err
	}
	return fmt.Errorf("%w: call %q of run %q is made again by a later message (a tool message answered it before): "+
		"its settlement would answer that call, so it is not stored", ErrDispatchConflict, clip(d.CallID, 64), d.RunID), nil
}
