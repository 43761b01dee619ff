package inspector

import (
	"context"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/server"
)

// maxThreadDispatches is how many of a thread's dispatches its page
// lists: 100 (engine.Dispatches' order, by run id then call id). The
// calls of the page's messages are marked whatever their rank
// (pageDispatches).
const maxThreadDispatches = 100

// DispatchRow is a dispatch on the thread page (engine.Dispatches): the
// dispatch, and whether its outcome is unknown.
type DispatchRow struct {
	engine.Dispatch
	// Pending reports a dispatch with no recorded result and no tool
	// message answering its call (engine.Unsettled): the call whose
	// outcome LoadContext gives as unknown.
	Pending bool
}

// State says the dispatch's state in the dispatch journal's words
// (journal.Dispatch.Status, as mnemo memctx says it):
// journal.DispatchPending, DispatchSettled, DispatchSettledFailed or
// DispatchAnswered (a tool message appended without SettleDispatch
// answers the call).
func (d DispatchRow) State() string {
	return journal.Dispatch{ResultID: d.ResultID, Failed: d.Failed, Answered: !d.Pending && !d.Settled}.Status()
}

// Class is the row's CSS class: "pending" or "settled".
func (d DispatchRow) Class() string {
	if d.Pending {
		return "pending"
	}
	return "settled"
}

// When is when the dispatch was settled, else begun (UTC).
func (d DispatchRow) When() time.Time {
	if d.SettledAt != nil {
		return d.SettledAt.UTC()
	}
	return d.BegunAt.UTC()
}

// callKey names a call of the page: its message id and call id.
type callKey struct{ messageID, callID string }

// threadDispatches fills v.Dispatches with the first maxThreadDispatches
// dispatches of v.Thread (MoreDispatches when it has more) and v.calls
// with the dispatches of the calls of v.Messages, each marked pending as
// engine.Unsettled finds it (walk60 L4: the thread page showed a pending
// dispatch's call with no sign that its outcome is unknown).
func (v *ThreadView) threadDispatches(ctx context.Context, t server.Tenant) error {
	threadID := v.Thread.ID
	ds, err := t.Engine.Dispatches(ctx, engine.DispatchesRequest{ThreadID: threadID, Limit: maxThreadDispatches + 1})
	if err != nil || len(ds) == 0 {
		return err
	}
	if len(ds) > maxThreadDispatches {
		ds, v.MoreDispatches = ds[:maxThreadDispatches], true
	}
	pending, err := t.Engine.Unsettled(ctx, threadID, "")
	if err != nil {
		return err
	}
	open := map[journal.DispatchKey]bool{}
	for _, p := range pending {
		open[dispatchKey(p)] = true
	}
	v.Dispatches = make([]DispatchRow, len(ds))
	for i, d := range ds {
		v.Dispatches[i] = DispatchRow{Dispatch: d, Pending: open[dispatchKey(d)]}
	}
	return v.pageDispatches(ctx, t, open)
}

// dispatchKey is d's key: its run and call ids.
func dispatchKey(d engine.Dispatch) journal.DispatchKey {
	return journal.DispatchKey{RunID: d.RunID, CallID: d.CallID}
}

// pageDispatches fills v.calls with the dispatches whose call a message
// of the page makes, read by those messages' ids (small64: the marks
// came from the first maxThreadDispatches dispatches by run id, so a
// thread of more left later calls unmarked), a page of
// engine.MaxPageLimit at a time; open holds the pending ones.
func (v *ThreadView) pageDispatches(ctx context.Context, t server.Tenant, open map[journal.DispatchKey]bool) error {
	var ids []string
	for _, m := range v.Messages {
		if len(m.ToolCalls) > 0 {
			ids = append(ids, m.ID)
		}
	}
	v.calls = map[callKey]*DispatchRow{}
	req := engine.DispatchesRequest{ThreadID: v.Thread.ID, MessageIDs: ids, Limit: engine.MaxPageLimit}
	for len(ids) > 0 {
		ds, err := t.Engine.Dispatches(ctx, req)
		if err != nil {
			return err
		}
		for _, d := range ds {
			v.calls[callKey{d.MessageID, d.CallID}] = &DispatchRow{Dispatch: d, Pending: open[dispatchKey(d)]}
		}
		if len(ds) < req.Limit {
			return nil
		}
		req.AfterRunID, req.AfterCallID = ds[len(ds)-1].RunID, ds[len(ds)-1].CallID
	}
	return nil
}

// CallDispatch returns the dispatch of call callID of message messageID,
// a message of the page, nil when there is none: the Messages table
// marks the call with its state.
func (v *ThreadView) CallDispatch(messageID, callID string) *DispatchRow {
	return v.calls[callKey{messageID, callID}]
}
