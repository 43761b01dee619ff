package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// A dispatch's call may be answered by a tool message appended with Append
// rather than by SettleDispatch (the pairing rule pairs any result with the
// nearest earlier call with its id). Its outcome is then known: Unsettled
// leaves it out and a new call may reuse its id. That answer is the
// dispatch's result as much as a settlement's message is:
//
//   - erasing it erases the dispatch (eraseAnswered), as erasing a
//     settlement's message does, instead of bringing the dispatch back as
//     "outcome unknown" (which, once the id was reused, no settlement could
//     ever end: it would answer the later call);
//   - SettleDispatch stores no second result for the call: it is refused
//     with ErrDispatchAnswered (refuseAnswered).

// eraseAnswered deletes the dispatches that the erasure's tool messages
// answered without a settlement; it runs before the messages are deleted,
// on the thread as it was. Deleted threads lose every dispatch anyway.
func (er *erasure) eraseAnswered(ctx context.Context, tx *store.Tx) error {
	for _, m := range er.msgs {
		if m.Role != RoleTool || m.ToolCallID == "" || er.deleted[m.ThreadID] {
			continue
		}
		ds, err := journal.AnsweredBy(ctx, tx, m.ThreadID, m.ToolCallID, m.Seq)
		if err != nil || len(ds) == 0 {
			if err != nil {
				return fmt.Errorf("engine: %w", err)
			}
			continue
		}
		// A call with the id that was not dispatched, nearer the result,
		// is the one it answers.
		n, err := er.ms.CountCalls(ctx, tx, msgstore.CallQuery{ThreadID: m.ThreadID, CallID: m.ToolCallID, AfterSeq: ds[0].Seq, BeforeSeq: m.Seq})
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		if n > 0 {
			continue
		}
		for _, d := range ds {
			if err := journal.DeleteDispatch(ctx, tx, d.RunID, d.CallID, er.now); err != nil {
				return fmt.Errorf("engine: %w", err)
			}
		}
	}
	return nil
}

// refuseAnswered returns the ErrDispatchAnswered refusing the settlement of
// d when d is not settled and a tool message already answers its call.
// Run after refuseMadeAgain: the call is then the thread's latest with its
// id, so the first result after it is its answer. It returns nil when the
// settlement may be stored, and err when the read fails.
func refuseAnswered(ctx context.Context, tx *store.Tx, d *Dispatch) (refusal, err error) {
	if d.Settled || d.Seq == 0 {
		return nil, nil
	}
	id, ok, err := journal.DispatchAnswer(ctx, tx, d.RunID, d.CallID)
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("engine: %w", err)
		}
		return nil, err
	}
	return fmt.Errorf("%w: call %q of run %q is answered by tool message %q (appended without this settlement): "+
		"its outcome is recorded there, and a settlement would be a second result for the call, so it is not stored",
		ErrDispatchAnswered, clip(d.CallID, 64), d.RunID, id), nil
}
