package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// itemDispatch is the "type" of a JSONL line that holds a dispatch of the
// dispatch journal (a side-effecting tool call begun with BeginDispatch),
// mnemo's own: mnemo export writes one after its thread's messages.
//
//	{"type": "dispatch", "thread", "resource", "run", "call_id", "name",
//	 "message_id", "state", "result_id"?, "begun_at", "settled_at"?}
//
// state is "pending" (begun, no settlement recorded: its outcome is unknown
// unless a tool message answers the call), "settled" or "failed"
// (SettleDispatch with a result or an error), the latter two with the
// settlement's tool message (result_id) and time. The call's arguments
// are its message's (message_id, a line before it). Import restores it
// as it was (engine.RestoreDispatch). A mnemo that does not know the
// type skips the line naming it (`unknown item type "dispatch"`).
const itemDispatch = "dispatch"

// dispatchMembers are the members of a "dispatch" line.
var dispatchMembers = []string{"type", "thread", "resource", "run", "call_id", "name", "message_id", "state", "result_id", "begun_at", "settled_at"}

// Dispatch states, as a "dispatch" line gives them.
const (
	statePending = "pending"
	stateSettled = "settled"
	stateFailed  = "failed"
)

// dispatchRecord is the "dispatch" line Export writes.
type dispatchRecord struct {
	Type      string `json:"type"`
	Thread    string `json:"thread"`
	Resource  string `json:"resource"`
	Run       string `json:"run"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	MessageID string `json:"message_id"`
	State     string `json:"state"`
	ResultID  string `json:"result_id,omitempty"`
	BegunAt   string `json:"begun_at"`
	SettledAt string `json:"settled_at,omitempty"`
}

// newDispatchRecord is the line of dispatch d.
func newDispatchRecord(d engine.Dispatch) dispatchRecord {
	rec := dispatchRecord{Type: itemDispatch, Thread: d.ThreadID, Resource: d.ResourceID, Run: d.RunID, CallID: d.CallID,
		Name: d.Name, MessageID: d.MessageID, State: statePending, BegunAt: d.BegunAt.UTC().Format(time.RFC3339Nano)}
	if d.Settled {
		rec.State, rec.ResultID = stateSettled, d.ResultID
		if d.Failed {
			rec.State = stateFailed
		}
		if d.SettledAt != nil {
			rec.SettledAt = d.SettledAt.UTC().Format(time.RFC3339Nano)
		}
	}
	return rec
}

// dispatches writes t's dispatches after its messages, a page at a time;
// none when t was erased since its messages were read.
func (x *exporter) dispatches(t engine.Thread) error {
	req := engine.DispatchesRequest{ThreadID: t.ID, ResourceID: t.ResourceID, Limit: x.page}
	for {
		ds, err := x.src.Dispatches(x.ctx, req)
		if errors.Is(err, engine.ErrThreadNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		for _, d := range ds {
			if err := x.enc.Encode(newDispatchRecord(d)); err != nil {
				return fmt.Errorf("importer: export dispatch %s of run %s: %w", d.CallID, d.RunID, err)
			}
			x.rep.Dispatches++
		}
		if len(ds) < req.Limit {
			return nil
		}
		req.AfterRunID, req.AfterCallID = ds[len(ds)-1].RunID, ds[len(ds)-1].CallID
	}
}

// DispatchRestorer is what Import needs of an engine to store the
// "dispatch" lines of a JSONL file: *engine.Engine is one. An Appender
// without it skips those lines, each with a reason.
type DispatchRestorer interface {
	RestoreDispatch(ctx context.Context, d engine.Dispatch) (restored bool, err error)
}

var _ DispatchRestorer = (*engine.Engine)(nil)

// dispatch reads the record of a "dispatch" line.
func (rec *jsonlRecord) dispatch() (*engine.Dispatch, error) {
	for _, m := range []struct{ name, v string }{{"thread", rec.Thread}, {"resource", rec.Resource}, {"run", rec.Run},
		{"call_id", rec.CallID}, {"name", rec.Name}, {"message_id", rec.MessageID}, {"state", rec.State}} {
		if m.v == "" {
			return nil, fmt.Errorf("%q is required in a \"dispatch\" line", m.name)
		}
	}
	d := &engine.Dispatch{RunID: rec.Run, ThreadID: rec.Thread, ResourceID: rec.Resource, CallID: rec.CallID, Name: rec.Name,
		MessageID: rec.MessageID, ResultID: rec.ResultID}
	var err error
	if d.BegunAt, err = dispatchTime("begun_at", rec.BegunAt); err != nil {
		return nil, err
	}
	switch rec.State {
	case statePending:
		if rec.ResultID != "" || len(rec.SettledAt) > 0 {
			return nil, errors.New(`a "pending" dispatch has no "result_id" or "settled_at"`)
		}
		return d, nil
	case stateSettled, stateFailed:
		d.Settled, d.Failed = true, rec.State == stateFailed
	default:
		return nil, fmt.Errorf(`"state" must be %q, %q or %q, got %q`, statePending, stateSettled, stateFailed, rec.State)
	}
	if rec.ResultID == "" {
		return nil, fmt.Errorf(`"result_id" is required in a %q dispatch`, rec.State)
	}
	at, err := dispatchTime("settled_at", rec.SettledAt)
	if err != nil {
		return nil, err
	}
	d.SettledAt = &at
	return d, nil
}

// dispatchTime reads a "dispatch" line's time member (named name): an RFC
// 3339 string, required.
func dispatchTime(name string, raw json.RawMessage) (time.Time, error) {
	var s string
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, fmt.Errorf("%q is required in a \"dispatch\" line", name)
	} else if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, fmt.Errorf("%q must be an RFC 3339 string, got %s", name, valueKind(raw))
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() {
		return time.Time{}, fmt.Errorf("%q must be an RFC 3339 time, got %q", name, s)
	}
	return t.UTC(), nil
}

// dispatch restores the dispatch of a "dispatch" line (at where), after
// the batch before it (its messages must be stored). A dispatch the engine
// refuses (its messages, ids, run or state) or an Appender that stores
// none is the line's problem; another error stops the import.
func (jb *jsonlBatch) dispatch(where string, d *engine.Dispatch) error {
	if err := jb.flush(); err != nil {
		return err
	}
	w := jb.w
	r, ok := w.e.(DispatchRestorer)
	if !ok {
		return w.problem(where, errors.New("this engine stores no dispatches"))
	}
	restored, err := r.RestoreDispatch(w.ctx, *d)
	switch {
	case err == nil && restored:
		w.rep.Dispatches++
	case err == nil:
		w.rep.DispatchesSame++
	case refusedDispatch(err):
		return w.problem(where, err)
	default:
		w.rep.Error, w.rep.Stopped = err.Error(), where
		return err
	}
	return nil
}

// refusedDispatch reports whether err is the engine's refusal of a
// dispatch (RestoreDispatch's, not the database's): a line's problem.
func refusedDispatch(err error) bool {
	for _, e := range []error{engine.ErrInvalidInput, engine.ErrThreadNotFound, engine.ErrResourceMismatch, engine.ErrConflict,
		engine.ErrCallDispatched, engine.ErrDispatchErased, journal.ErrRunOwned} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
