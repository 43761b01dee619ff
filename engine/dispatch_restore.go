package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// A dispatch moves with its thread: mnemo export reads a thread's
// dispatches (Dispatches) after its messages, and an import writes each
// back as it was (RestoreDispatch), so the target tells a call of unknown
// outcome, a settled one and an undispatched one apart as the source did:
// LoadContext gives the first its "Outcome unknown" result instead of
// dropping it as unpaired, and BeginDispatch and SettleDispatch answer a
// retried call as they would have in the source.

// DispatchesRequest chooses a page of a thread's dispatches (Dispatches).
type DispatchesRequest struct {
	// ThreadID is the thread; required. ResourceID, when set, must be its
	// resource (ErrResourceMismatch otherwise).
	ThreadID, ResourceID string
	// AfterRunID and AfterCallID are the last dispatch of the page
	// before (the zero values: from the first).
	AfterRunID, AfterCallID string
	// Limit is the page size: 1 to MaxPageLimit; 0 means MaxPageLimit.
	Limit int
	// MessageIDs, when not empty, keeps only the dispatches whose call
	// one of these messages makes (at most MaxPageLimit ids): a page of
	// messages finds its dispatched calls without reading the thread's
	// other dispatches. Empty: all of the thread's.
	MessageIDs []string
}

// Dispatches returns a page of the thread's dispatches, pending, settled
// or answered by a tool message, in byte order of run id, then call id,
// each as BeginDispatch returns it (Arguments and Seq from its call's
// message). A page shorter than the limit is the last. An erased dispatch
// is not listed.
//
// Errors: a *ValidationError for a bad id, a Limit out of range or more
// than MaxPageLimit MessageIDs; ErrThreadNotFound; ErrResourceMismatch
// when ResourceID is given and the thread is another resource's.
func (e *Engine) Dispatches(ctx context.Context, req DispatchesRequest) ([]Dispatch, error) {
	if req.Limit < 0 || req.Limit > MaxPageLimit {
		return nil, invalid(-1, "limit", "must be 0 to %d, got %d", MaxPageLimit, req.Limit)
	} else if req.Limit == 0 {
		req.Limit = MaxPageLimit
	}
	if len(req.MessageIDs) > MaxPageLimit {
		return nil, invalid(-1, "messageIds", "at most %d ids, got %d", MaxPageLimit, len(req.MessageIDs))
	}
	if _, err := e.resourceOf(ctx, req.ThreadID, req.ResourceID); err != nil {
		return nil, err
	}
	rs, err := journal.MessageDispatches(ctx, e.db, req.ThreadID, req.MessageIDs, journal.DispatchKey{RunID: req.AfterRunID, CallID: req.AfterCallID}, req.Limit)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := make([]Dispatch, len(rs))
	for i, r := range rs {
		out[i] = dispatchOf(r)
	}
	return out, nil
}

// dispatchOf is the Dispatch of a journal row, with its call's arguments
// taken from the row's tool calls.
func dispatchOf(r journal.Dispatch) Dispatch {
	d := Dispatch{RunID: r.RunID, CallID: r.CallID, ThreadID: r.ThreadID, ResourceID: r.ResourceID, Name: r.Name,
		MessageID: r.MessageID, Seq: r.Seq, Settled: r.ResultID != "", Failed: r.Failed, ResultID: r.ResultID, BegunAt: r.BegunAt}
	if !r.SettledAt.IsZero() {
		t := r.SettledAt
		d.SettledAt = &t
	}
	var tcs []ToolCall
	if r.ToolCalls != "" && json.Unmarshal([]byte(r.ToolCalls), &tcs) == nil {
		for _, tc := range tcs {
			if tc.ID == r.CallID {
				d.Arguments = tc.Arguments
			}
		}
	}
	return d
}

// RestoreDispatch stores d, a dispatch as another store recorded it
// (Dispatches; mnemo export carries it), in the state it had there:
// pending (Settled false), or settled (ResultID, Failed, SettledAt), with
// its BegunAt. Its call's message, d.MessageID, must be stored in
// d.ThreadID of d.ResourceID making call d.CallID of tool d.Name, and a
// settled dispatch's result, d.ResultID, must be a tool message of the
// thread answering d.CallID after it; d.Seq and d.Arguments are not read
// (the message holds them). The run is claimed for the thread as
// BeginDispatch claims it. restored is false when the same dispatch is
// stored already (same message, name, state and times): importing a file
// again stores nothing twice.
//
// Errors: a *ValidationError for a bad id, a missing name or BegunAt, a
// settled dispatch without its ResultID or SettledAt, or settled before it
// was begun (or a pending one with either, or Failed), or messages that are not as above; ErrThreadNotFound;
// ErrResourceMismatch when the thread is another resource's;
// journal.ErrRunOwned when the run belongs to another thread
// (journal.ErrRunErased when that thread was erased); ErrDispatchConflict
// (which matches ErrConflict) when (RunID, CallID) is stored with another
// message, name, state or time, or when d is pending and a later message
// makes its call again with no tool message answering it in between
// (refuseRestoredMadeAgain); a
// *CallDispatchedError when another run's dispatch holds the call;
// ErrDispatchErased when this store erased the dispatch. Nothing is stored
// when it fails.
func (e *Engine) RestoreDispatch(ctx context.Context, d Dispatch) (restored bool, err error) {
	if err := e.checkWritable(ctx); err != nil {
		return false, err
	}
	if err := checkRestored(d); err != nil {
		return false, err
	}
	if _, err := e.resourceOf(ctx, d.ThreadID, d.ResourceID); err != nil {
		return false, err
	}
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(d.ResourceID), false)
	if err != nil {
		return false, err
	}
	defer leave()
	seq, err := e.checkRestoredMessages(ctx, d)
	if err != nil {
		return false, err
	}
	err = e.tx(ctx, func(tx *store.Tx) error {
		restored = false // a retried transaction (store.RunTx) decides again
		same, err := e.restoreTx(ctx, tx, d, seq)
		restored = !same
		return err
	})
	return restored && err == nil, err
}

// checkRestored checks the fields of a dispatch given to RestoreDispatch.
func checkRestored(d Dispatch) error {
	settledAt := d.SettledAt != nil && !d.SettledAt.IsZero()
	switch {
	case !ValidID(d.RunID):
		return badID(-1, "runId", d.RunID, false)
	case checkRunID(d.RunID) != nil:
		return checkRunID(d.RunID)
	case !ValidID(d.ThreadID):
		return badID(-1, "threadId", d.ThreadID, false)
	case !ValidID(d.ResourceID):
		return badID(-1, "resourceId", d.ResourceID, false)
	case d.CallID == "" || len(d.CallID) > 256:
		return invalid(-1, "callId", "must be 1 to 256 bytes")
	case d.Name == "":
		return invalid(-1, "name", "is required (the tool's name)")
	case !ValidID(d.MessageID):
		return badID(-1, "messageId", d.MessageID, false)
	case d.BegunAt.IsZero():
		return invalid(-1, "begunAt", "is required")
	case d.Settled && (!ValidID(d.ResultID) || !settledAt):
		return invalid(-1, "resultId", "a settled dispatch needs its result's message id and settledAt")
	case d.Settled && d.SettledAt.Before(d.BegunAt):
		return invalid(-1, "settledAt", "%s is before begunAt %s: a dispatch is settled after it is begun",
			d.SettledAt.UTC().Format(time.RFC3339Nano), d.BegunAt.UTC().Format(time.RFC3339Nano))
	case !d.Settled && (d.ResultID != "" || d.SettledAt != nil || d.Failed):
		return invalid(-1, "settled", "a pending dispatch has no resultId, settledAt or failed")
	}
	return nil
}

// checkRestoredMessages checks that d's call message, and its result's
// when settled, are stored in d's thread as RestoreDispatch requires, and
// returns the call message's seq.
func (e *Engine) checkRestoredMessages(ctx context.Context, d Dispatch) (seq int64, err error) {
	ids := []string{d.MessageID}
	if d.Settled {
		ids = append(ids, d.ResultID)
	}
	ms, err := e.MessagesByID(ctx, d.ResourceID, ids...)
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(ms, func(m Message) bool { return m.ID == d.MessageID })
	if i < 0 || ms[i].ThreadID != d.ThreadID || !slices.ContainsFunc(ms[i].ToolCalls, func(tc ToolCall) bool {
		return tc.ID == d.CallID && tc.Name == d.Name
	}) {
		return 0, invalid(-1, "messageId", "%q is not a stored message of thread %q making call %q of tool %q",
			clip(d.MessageID, 64), d.ThreadID, clip(d.CallID, 64), clip(d.Name, 64))
	}
	if !d.Settled {
		return ms[i].Seq, nil
	}
	j := slices.IndexFunc(ms, func(m Message) bool { return m.ID == d.ResultID })
	if j < 0 || ms[j].ThreadID != d.ThreadID || ms[j].Role != RoleTool || ms[j].ToolCallID != d.CallID || ms[j].Seq <= ms[i].Seq {
		return 0, invalid(-1, "resultId", "%q is not a stored tool message of thread %q answering call %q after its message",
			clip(d.ResultID, 64), d.ThreadID, clip(d.CallID, 64))
	}
	return ms[i].Seq, nil
}

// restoreTx is RestoreDispatch's transaction: claim the run, then store d
// (its call message at seq) unless it is stored already (same true) or
// refused.
func (e *Engine) restoreTx(ctx context.Context, tx *store.Tx, d Dispatch, seq int64) (same bool, err error) {
	if err := e.journal.ClaimRunTx(ctx, tx, d.RunID, d.ThreadID, d.ResourceID); err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	stored, err := e.dispatch(ctx, tx, d.RunID, d.CallID)
	switch {
	case err == nil && sameDispatch(*stored, d):
		return true, nil
	case err == nil:
		return false, fmt.Errorf("%w: call %q of run %q is stored as another dispatch (message %q, %s)",
			ErrDispatchConflict, clip(d.CallID, 64), d.RunID, stored.MessageID, dispatchState(*stored))
	case !errors.Is(err, journal.ErrNotFound):
		return false, fmt.Errorf("engine: read dispatch: %w", err)
	}
	if err := refuseErasedBegin(ctx, tx, d.RunID, d.CallID); err != nil {
		return false, err
	}
	other, held, err := journal.OtherDispatch(ctx, tx, d.ThreadID, d.MessageID, d.CallID, d.RunID)
	if err != nil {
		return false, fmt.Errorf("engine: %w", err)
	} else if held {
		return false, heldBy(d.CallID, d.MessageID, other) // dispatch_begin.go
	}
	if err := e.refuseRestoredMadeAgain(ctx, tx, d, seq); err != nil {
		return false, err
	}
	row := journal.Dispatch{RunID: d.RunID, CallID: d.CallID, ThreadID: d.ThreadID, ResourceID: d.ResourceID,
		MessageID: d.MessageID, Name: d.Name, ResultID: d.ResultID, Failed: d.Failed, BegunAt: d.BegunAt.UTC()}
	if d.Settled {
		row.SettledAt = d.SettledAt.UTC()
	}
	if err := journal.RestoreDispatch(ctx, tx, row); err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	return false, nil
}

// refuseRestoredMadeAgain refuses, with ErrDispatchConflict, the restore
// of a pending dispatch d (its call message at seq) whose call a later
// message makes again with no tool message answering it in between. No
// store holds such a dispatch (refusePendingCalls refuses the later call
// while it is pending, BeginDispatch a dispatch of a call made again:
// dispatch_pending.go), so only an edited file brings one, and its
// settlement would answer the later call (the pairing rule): SettleDispatch
// refuses it, and the call would wait for a result forever. A pending
// dispatch whose call was answered by a plain tool message and then made
// again is one a store holds, and is restored.
func (e *Engine) refuseRestoredMadeAgain(ctx context.Context, tx *store.Tx, d Dispatch, seq int64) error {
	if d.Settled {
		return nil
	}
	before := int64(math.MaxInt64)
	if _, answer, answered, err := e.ms.FirstResult(ctx, tx, d.ThreadID, d.CallID, seq); err != nil {
		return fmt.Errorf("engine: %w", err)
	} else if answered {
		before = answer
	}
	n, err := e.ms.CountCalls(ctx, tx, msgstore.CallQuery{ThreadID: d.ThreadID, CallID: d.CallID, BeforeSeq: before, AfterSeq: seq})
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	} else if n > 0 {
		return fmt.Errorf("%w: call %q of message %q is made again by a later message of thread %q with no tool message answering it in between: "+
			"a pending dispatch's call is the latest with its id until it is answered, so the dispatch is not restored",
			ErrDispatchConflict, clip(d.CallID, 64), clip(d.MessageID, 64), d.ThreadID)
	}
	return nil
}

// sameDispatch reports whether the stored dispatch s is d as
// RestoreDispatch would store it (times to the millisecond the store
// keeps).
func sameDispatch(s, d Dispatch) bool {
	if s.ThreadID != d.ThreadID || s.MessageID != d.MessageID || s.Name != d.Name || s.Settled != d.Settled ||
		s.ResultID != d.ResultID || s.Failed != d.Failed || s.BegunAt.UnixMilli() != d.BegunAt.UnixMilli() {
		return false
	}
	return !s.Settled || s.SettledAt.UnixMilli() == d.SettledAt.UnixMilli()
}

// dispatchState names d's state as export writes it: "pending",
// "settled" or "failed".
func dispatchState(d Dispatch) string {
	switch {
	case !d.Settled:
		return "pending"
	case d.Failed:
		return "failed"
	}
	return "settled"
}
