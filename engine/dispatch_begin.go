package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// BeginDispatch's refusals of a dispatch that could never be settled, or
// that an erasure removed (dispatch.go; those that keep a pending
// dispatch's call the latest with its id are in dispatch_pending.go). A call
// has one result (the pairing rule), so a call holds at most one dispatch:
//
//   - refuseErasedBegin: the run's dispatch of the call was erased from a
//     kept thread (journal.DispatchErased): ErrDispatchErased. Begun again
//     it would store the erased call again, or act on it again.
//   - refuseHeldCall: another run's dispatch of the same call, not erased,
//     holds it, whether pending, settled or answered: a
//     *CallDispatchedError (ErrCallDispatched). Before, the second dispatch
//     was stored, and whichever settled second was refused with
//     ErrDispatchAnswered, for good. A call that a tool message answers
//     without any dispatch: ErrDispatchAnswered. An erased dispatch holds
//     no call: another run may begin one on it.

// refuseErasedBegin returns the ErrDispatchErased refusing to begin the
// dispatch (runID, callID) again after an erasure removed it, nil when
// none did, and err when the read fails.
func refuseErasedBegin(ctx context.Context, tx *store.Tx, runID, callID string) error {
	_, _, erased, err := journal.DispatchErased(ctx, tx, runID, callID)
	switch {
	case err != nil:
		return fmt.Errorf("engine: %w", err)
	case !erased:
		return nil
	}
	return fmt.Errorf("%w: the dispatch of call %q in run %q was erased (its call's or its result's message was deleted); "+
		"it is not begun again under that run: begin it under another run id", ErrDispatchErased, clip(callID, 64), runID)
}

// refuseHeldCall returns the refusal of a dispatch of call callID of
// in.Message (stored at seq) by in.RunID when another run's dispatch holds
// the call (a *CallDispatchedError) or a tool message already answers it
// (ErrDispatchAnswered); nil when the dispatch may be begun, err when a
// read fails. Run after laterCall: no later message makes the call again,
// so the first result after it is its answer.
func (e *Engine) refuseHeldCall(ctx context.Context, tx *store.Tx, in DispatchIntent, callID string, seq int64) error {
	d, held, err := journal.OtherDispatch(ctx, tx, in.ThreadID, in.Message.ID, callID, in.RunID)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	answer, _, answered, err := e.ms.FirstResult(ctx, tx, in.ThreadID, callID, seq)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	switch {
	case held:
		refusal := heldBy(callID, in.Message.ID, d)
		if d.ResultID == "" && answered {
			refusal.State, refusal.ResultID = "answered", answer
		}
		return refusal
	case answered:
		return fmt.Errorf("%w: call %q of message %q is answered by tool message %q: its outcome is recorded there, and a dispatch "+
			"of it could never be settled (a call has one result), so nothing is stored; to act again, make a new call",
			ErrDispatchAnswered, clip(callID, 64), in.Message.ID, answer)
	}
	return nil
}

// heldBy is the refusal of a dispatch of call callID of message messageID
// that other, another run's dispatch, holds: pending, or settled with its
// result.
func heldBy(callID, messageID string, other journal.Dispatch) *CallDispatchedError {
	refusal := &CallDispatchedError{CallID: callID, MessageID: messageID, RunID: other.RunID, State: "pending"}
	if other.ResultID != "" {
		refusal.State, refusal.ResultID = "settled", other.ResultID
	}
	return refusal
}
