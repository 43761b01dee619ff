package inspector

import (
	"context"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// maxThreadDispatches is how many of a thread's dispatches its page
// lists: 100 (engine.Dispatches' order, by run id then call id).
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

// State says the dispatch's state: "pending · outcome unknown", "settled",
// "settled as failed" or "answered by a tool message" (a tool message
// appended without SettleDispatch answers the call).
func (d DispatchRow) State() string {
	switch {
	case d.Pending:
		return "pending · outcome unknown"
	case d.Settled && d.Failed:
		return "settled as failed"
	case d.Settled:
		return "settled"
	}
	return "answered by a tool message"
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

// threadDispatches returns the first maxThreadDispatches dispatches of
// threadID, each marked pending as engine.Unsettled finds it, and whether
// the thread has more (walk60 L4: the thread page showed a pending
// dispatch's call with no sign that its outcome is unknown).
func threadDispatches(ctx context.Context, t server.Tenant, threadID string) (rows []DispatchRow, more bool, err error) {
	ds, err := t.Engine.Dispatches(ctx, engine.DispatchesRequest{ThreadID: threadID, Limit: maxThreadDispatches + 1})
	if err != nil || len(ds) == 0 {
		return nil, false, err
	}
	if len(ds) > maxThreadDispatches {
		ds, more = ds[:maxThreadDispatches], true
	}
	pending, err := t.Engine.Unsettled(ctx, threadID, "")
	if err != nil {
		return nil, false, err
	}
	open := map[[2]string]bool{}
	for _, p := range pending {
		open[[2]string{p.RunID, p.CallID}] = true
	}
	rows = make([]DispatchRow, len(ds))
	for i, d := range ds {
		rows[i] = DispatchRow{Dispatch: d, Pending: open[[2]string{d.RunID, d.CallID}]}
	}
	return rows, more, nil
}

// CallDispatch returns the dispatch of call callID of message messageID
// among the page's dispatches, nil when there is none: the Messages table
// marks the call with its state.
func (v *ThreadView) CallDispatch(messageID, callID string) *DispatchRow {
	for i := range v.Dispatches {
		if d := &v.Dispatches[i]; d.MessageID == messageID && d.CallID == callID {
			return d
		}
	}
	return nil
}
