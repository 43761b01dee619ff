package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
)

// The dispatch journal records a side-effecting tool call (send an e-mail,
// charge a card) before the application performs it, and its result after:
//
//	d, err := e.BeginDispatch(ctx, DispatchIntent{RunID, ThreadID, ResourceID, Message: assistantMsg})
//	out, callErr := sendMail(args)          // the action itself, outside mnemo
//	e.SettleDispatch(ctx, Settlement{RunID, ResourceID, CallID: d.CallID, Result: out})
//
// A crash between the two leaves a dispatch whose outcome is unknown: the
// action may or may not have happened. LoadContext then keeps the call and
// gives it a synthetic tool result saying so (Config.UnsettledText), so the
// model neither believes the action failed and repeats it, nor believes it
// succeeded; Unsettled lists such dispatches for reconciliation with the
// service that owns the action, and a later SettleDispatch replaces the
// synthetic result with the real one.

// DefaultUnsettledText is the synthetic tool result LoadContext gives a
// dispatched call whose outcome is unknown (Config.UnsettledText).
const DefaultUnsettledText = "Outcome unknown: this action was started but its result was never recorded (the agent stopped before it finished). It may or may not have taken effect. Do not repeat it without first checking whether it already happened."

// Dispatch is one side-effecting tool call in the dispatch journal.
type Dispatch struct {
	// RunID is the run that made the call.
	RunID string `json:"runId"`
	// ThreadID is the thread holding the call's assistant message.
	ThreadID string `json:"threadId"`
	// ResourceID is ThreadID's resource.
	ResourceID string `json:"resourceId"`
	// CallID is the tool call's id; (RunID, CallID) names the dispatch.
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`      // the tool's name
	Arguments json.RawMessage `json:"arguments"` // the call's arguments, as stored (redacted)
	// MessageID and Seq name the assistant message that makes the call.
	MessageID string `json:"messageId"`
	// Seq is that message's seq in ThreadID.
	Seq int64 `json:"seq"`
	// Settled reports that the result is recorded: ResultID is the tool
	// message holding it, Failed says it was recorded as an error.
	Settled bool `json:"settled"`
	// Failed reports a settlement recorded as an error (false while pending).
	Failed bool `json:"failed,omitempty"`
	// ResultID is the tool message holding the result ("" while pending).
	ResultID string `json:"resultId,omitempty"`
	// BegunAt is when BeginDispatch recorded the intent (the engine's clock, UTC).
	BegunAt time.Time `json:"begunAt"`
	// SettledAt is when the result was recorded; nil while pending.
	SettledAt *time.Time `json:"settledAt,omitempty"`
}

// DispatchIntent announces a tool call the application is about to
// perform (BeginDispatch).
type DispatchIntent struct {
	// RunID is the run making the call; it is claimed for the thread as
	// LoadContext claims it. Required; ValidNewID, as the thread's and
	// the resource's ids.
	RunID string
	// ThreadID and ResourceID name the conversation; both required (the
	// thread is created when new, as by Append).
	ThreadID, ResourceID string
	// Message is the assistant message that makes the call. It is appended
	// to the thread unless already stored (same id and content). When its
	// ID is empty one is derived from the run and its call ids, so a
	// repeated BeginDispatch stores it once.
	Message Message
	// CallID picks the call among Message.ToolCalls; it may be empty when
	// the message makes exactly one call.
	CallID string
}

// Settlement records the outcome of a dispatched call (SettleDispatch).
type Settlement struct {
	// RunID and CallID name the dispatch; ResourceID is the caller's
	// resource, which must own it. All required.
	RunID, ResourceID, CallID string
	// Result is the tool's output, stored as the tool message's content.
	Result string
	// Error, when not empty, records the call as failed: the tool message
	// reads "Error: " followed by it, and Result must be empty.
	Error string
}

// BeginDispatch commits the intent to perform a tool call before the
// caller performs it: the assistant message is appended (unless stored)
// and the dispatch recorded, in one transaction. It is idempotent by
// (thread, run, call id): beginning again returns the recorded dispatch.
// A call holds one dispatch (a call has one result): another run's
// dispatch of a stored call is refused, whether the first is pending or
// settled; once an erasure removed the first (its call's or its result's
// message deleted), the call is free for another run, but not for the
// erased dispatch's own run (ErrDispatchErased).
//
// Errors: a *ValidationError for a bad id or a message that is not an
// assistant message making the call; ErrResourceMismatch when the thread is
// another resource's; journal.ErrRunOwned when the run belongs to another
// thread (journal.ErrRunErased, which matches it, when the run's thread
// was erased); ErrConflict when the run's call was begun with another message,
// or when the message is stored and a later message of the thread makes
// the call again (the settlement would answer that one); a
// *CallDispatchedError (errors.Is ErrCallDispatched) when another run's
// dispatch of the stored call is pending, settled or answered;
// ErrDispatchAnswered when a tool message already answers the stored call
// and no dispatch holds it; ErrDispatchErased when this run's dispatch of
// the call was erased (begin under another run id); the errors of
// Append, among them ErrDispatchPending when the message is new and an
// earlier dispatch with one of its call ids is pending.
// Nothing is stored when it fails.
func (e *Engine) BeginDispatch(ctx context.Context, in DispatchIntent) (*Dispatch, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	call, err := e.validateIntent(&in)
	if err != nil {
		return nil, err
	}
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(in.ResourceID), false)
	if err != nil {
		return nil, err
	}
	defer leave()
	var existed bool
	before := func(ctx context.Context, tx *store.Tx, _ *AppendResult) error {
		existed = false // a retried transaction (store.RunTx) reads it again
		// The run is claimed first: another thread's run is refused before
		// anything of its dispatches is read. A claim that the append then
		// refuses (another resource's thread) is rolled back with it.
		if err := e.journal.ClaimRunTx(ctx, tx, in.RunID, in.ThreadID, in.ResourceID); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		msg, ok, err := journal.DispatchMessage(ctx, tx, in.RunID, call.ID)
		switch {
		case err != nil:
			return fmt.Errorf("engine: begin dispatch: %w", err)
		case !ok:
			return refuseErasedBegin(ctx, tx, in.RunID, call.ID) // dispatch_begin.go
		case msg != in.Message.ID:
			return fmt.Errorf("%w: call %q of run %q was begun with message %q", ErrDispatchConflict, call.ID, in.RunID, msg)
		}
		existed = true
		return nil
	}
	after := func(ctx context.Context, tx *store.Tx, res *AppendResult) error {
		if existed {
			return nil
		}
		if later, err := e.laterCall(ctx, tx, in.ThreadID, call.ID, res.Seqs[0]); err != nil {
			return err
		} else if later {
			return fmt.Errorf("%w: call %q of message %q is made again by a later message of thread %q: its settlement would answer that call; begin the dispatch on the latest call",
				ErrDispatchConflict, clip(call.ID, 64), in.Message.ID, in.ThreadID)
		}
		if err := e.refuseHeldCall(ctx, tx, in, call.ID, res.Seqs[0]); err != nil {
			return err
		}
		if err := journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: in.RunID, CallID: call.ID, ThreadID: in.ThreadID,
			ResourceID: res.ResourceID, MessageID: in.Message.ID, Name: call.Name, BegunAt: e.now().UTC()}); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		return nil
	}
	if _, err := e.appendWith(ctx, AppendRequest{ThreadID: in.ThreadID, ResourceID: in.ResourceID, Messages: []Message{in.Message}},
		appendHooks{before: before, after: after}); err != nil {
		return nil, err
	}
	return e.dispatch(ctx, e.db, in.RunID, call.ID)
}

// validateIntent checks in, derives the message id when empty and returns
// the call dispatched.
func (e *Engine) validateIntent(in *DispatchIntent) (ToolCall, error) {
	switch {
	case !e.newID(in.RunID):
		return ToolCall{}, badID(-1, "runId", in.RunID, true)
	case checkRunID(in.RunID) != nil:
		return ToolCall{}, checkRunID(in.RunID)
	case !e.newID(in.ThreadID):
		return ToolCall{}, badID(-1, "threadId", in.ThreadID, true)
	case !e.newID(in.ResourceID):
		return ToolCall{}, badID(-1, "resourceId", in.ResourceID, true)
	case in.Message.Role != RoleAssistant || len(in.Message.ToolCalls) == 0:
		return ToolCall{}, invalid(-1, "message", "must be an assistant message with tool calls")
	}
	var call *ToolCall
	for i, tc := range in.Message.ToolCalls {
		if tc.ID == in.CallID || (in.CallID == "" && len(in.Message.ToolCalls) == 1) {
			call = &in.Message.ToolCalls[i]
			break
		}
	}
	if call == nil {
		if in.CallID == "" {
			return ToolCall{}, invalid(-1, "callId", "is required when the message makes more than one call")
		}
		return ToolCall{}, invalid(-1, "callId", "%q is not a call of the message", clip(in.CallID, 64))
	}
	if in.Message.ID == "" {
		ids := make([]string, len(in.Message.ToolCalls))
		for i, tc := range in.Message.ToolCalls {
			ids[i] = tc.ID
		}
		in.Message.ID = derivedID("dispatch-call-", in.ResourceID, in.ThreadID, in.RunID, strings.Join(ids, "\x00"))
	}
	return *call, nil
}

// derivedID is prefix and 32 hex digits of a hash of parts: a message id
// that the same (run, call) always gets.
func derivedID(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return prefix + hex.EncodeToString(h.Sum(nil))[:32]
}

// dispatch reads the dispatch (run, call) through q (a transaction or the
// pool) with its call's arguments; journal.ErrNotFound (wrapped) when there
// is none.
func (e *Engine) dispatch(ctx context.Context, q journal.Querier, runID, callID string) (*Dispatch, error) {
	r, err := journal.ReadDispatch(ctx, q, runID, callID)
	if err != nil {
		return nil, err
	}
	d := dispatchOf(r) // dispatch_restore.go
	return &d, nil
}

// SettleDispatch commits the outcome of a dispatched call as its tool
// message (appended to the thread, named after the tool). It is idempotent:
// settling again with the same outcome returns the recorded dispatch. Once
// settled, LoadContext shows the real result instead of the synthetic one.
//
// Its ids name a stored dispatch, so they are held to ValidID: a dispatch
// begun on a thread, resource or run "." or ".." (a store written before
// ValidNewID) is settled too, appended to its thread as any settlement.
//
// Errors: a *ValidationError for a bad id or both Result and Error given;
// ErrDispatchNotFound when no intent was begun for (RunID, CallID) under
// ResourceID (another resource's dispatch gets this same answer, naming
// nothing of it); ErrDispatchErased when the dispatch was erased since:
// its thread (deleted, expired or evicted), or its call's or its result's
// message (DeleteMessages; a tool message appended without SettleDispatch
// that answered the call counts as its result), and
// nothing is stored (also against an erasure in another process on
// Postgres: the settlement reads its dispatch under the thread's append
// lock, which the erasure takes too); ErrDispatchSettled (which matches ErrConflict too)
// when it was settled with another outcome; ErrConflict when it is not
// settled, a tool message
// answered its call and a later message makes the call again (the
// settlement would answer that call): nothing is stored;
// ErrDispatchAnswered when it is not settled and a tool message already
// answers its call (appended with Append, or another run's settlement of
// the same call): a settlement would be a second result, so nothing is
// stored.
func (e *Engine) SettleDispatch(ctx context.Context, s Settlement) (*Dispatch, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	switch {
	case !ValidID(s.RunID):
		return nil, badID(-1, "runId", s.RunID, false)
	case !ValidID(s.ResourceID):
		return nil, badID(-1, "resourceId", s.ResourceID, false)
	case s.CallID == "" || len(s.CallID) > 256:
		return nil, invalid(-1, "callId", "must be 1 to 256 bytes")
	case s.Error != "" && s.Result != "":
		return nil, invalid(-1, "error", "give a result or an error, not both")
	}
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(s.ResourceID), false)
	if err != nil {
		return nil, err
	}
	defer leave()
	d, err := e.ownDispatch(ctx, e.db, s)
	if err != nil {
		return nil, err
	}
	content := s.Result
	if s.Error != "" {
		content = "Error: " + s.Error
	}
	msg := Message{ID: derivedID("dispatch-result-", s.RunID, s.CallID), Role: RoleTool, ToolCallID: s.CallID, Name: d.Name, Content: content}
	var madeAgain error // the refusal of a call made again or answered since, not a stored result's conflict
	before := func(ctx context.Context, tx *store.Tx, _ *AppendResult) error {
		// Again, inside the transaction: an erasure may have committed
		// since. Under the thread's append lock (Postgres): an erasure of
		// the thread or of its messages in another process takes it too,
		// so it either committed before this read or waits until the
		// settlement committed (and then erases it with the rest).
		if err := e.ms.LockThreads(ctx, tx, d.ThreadID); err != nil {
			return fmt.Errorf("engine: settle: %w", err)
		}
		d, err := e.ownDispatch(ctx, tx, s)
		if err != nil {
			return err
		}
		madeAgain, err = e.refuseMadeAgain(ctx, tx, d)
		if err == nil && madeAgain == nil {
			madeAgain, err = refuseAnswered(ctx, tx, d) // dispatch_answered.go
		}
		if err != nil {
			return err
		}
		if f := e.erasure.settling.Load(); madeAgain == nil && f != nil {
			(*f)()
		}
		return madeAgain
	}
	after := func(ctx context.Context, tx *store.Tx, res *AppendResult) error {
		if res.Stored == 0 {
			return nil // settled before with this very outcome
		}
		if err := journal.SettleDispatch(ctx, tx, s.RunID, s.CallID, msg.ID, s.Error != "", e.now().UTC()); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		return nil
	}
	// The thread is the dispatch's, stored (before checks it again), so a
	// dispatch begun on a thread "." or ".." (a store written before
	// ValidNewID) is settled as any other (appendHooks.stored).
	_, err = e.appendWith(ctx, AppendRequest{ThreadID: d.ThreadID, ResourceID: s.ResourceID, Messages: []Message{msg}},
		appendHooks{before: before, after: after, stored: true})
	switch {
	case madeAgain != nil && err != nil:
		return nil, madeAgain
	case errors.Is(err, ErrConflict):
		// The tool message is stored with another outcome.
		return nil, &settledError{callID: s.CallID, runID: s.RunID}
	case err != nil:
		return nil, err
	}
	return e.dispatch(ctx, e.db, s.RunID, s.CallID)
}

// ownDispatch reads the dispatch s names, which must be s.ResourceID's.
func (e *Engine) ownDispatch(ctx context.Context, q journal.Querier, s Settlement) (*Dispatch, error) {
	d, err := e.dispatch(ctx, q, s.RunID, s.CallID)
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return nil, e.missingDispatch(ctx, q, s)
	case err != nil:
		return nil, fmt.Errorf("engine: read dispatch: %w", err)
	case d.ResourceID != s.ResourceID:
		return nil, fmt.Errorf("%w: no call %q in run %q of resource %q", ErrDispatchNotFound, s.CallID, s.RunID, s.ResourceID)
	}
	return d, nil
}

// missingDispatch tells a dispatch that never was from an erased one: one
// whose thread was erased (the run stays claimed by the erased thread's
// tombstone), or one an erasure of its call's or result's message removed
// from a kept thread (its tombstone, journal.DispatchErased). Another
// resource's erased dispatch is not found, as a live one is.
func (e *Engine) missingDispatch(ctx context.Context, q journal.Querier, s Settlement) error {
	thread, resource, err := journal.RunOwner(ctx, q, s.RunID)
	if err == nil && strings.HasPrefix(thread, TombstonePrefix) && (resource == s.ResourceID || strings.HasPrefix(resource, TombstonePrefix)) {
		return fmt.Errorf("%w: the thread of run %q was erased; the settlement of call %q is not stored", ErrDispatchErased, s.RunID, clip(s.CallID, 64))
	}
	_, resource, erased, err := journal.DispatchErased(ctx, q, s.RunID, s.CallID)
	switch {
	case err != nil:
		return fmt.Errorf("engine: %w", err)
	case erased && resource == s.ResourceID:
		return fmt.Errorf("%w: the dispatch of call %q in run %q was erased (its call's or its result's message was deleted); "+
			"the settlement is not stored", ErrDispatchErased, clip(s.CallID, 64), s.RunID)
	}
	return fmt.Errorf("%w: no call %q in run %q of resource %q", ErrDispatchNotFound, s.CallID, s.RunID, s.ResourceID)
}

// Unsettled lists the thread's dispatches whose outcome is unknown (begun,
// never settled, and no result appended for the call otherwise), oldest
// first, so the application can reconcile them with
// the service that owns the action and settle them.
//
// Errors: a *ValidationError for a bad id; ErrThreadNotFound;
// ErrResourceMismatch when resourceID is given and the thread is another
// resource's (naming neither its owner nor its dispatches), as every call
// taking a thread and a resource answers it: it tells the caller the id is
// taken, where SettleDispatch, keyed by run and call, answers
// ErrDispatchNotFound.
func (e *Engine) Unsettled(ctx context.Context, threadID, resourceID string) ([]Dispatch, error) {
	if _, err := e.resourceOf(ctx, threadID, resourceID); err != nil {
		return nil, err
	}
	keys, err := e.journal.UnsettledDispatches(ctx, threadID)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := []Dispatch{}
	for _, k := range keys {
		d, err := e.dispatch(ctx, e.db, k.RunID, k.CallID)
		if err != nil {
			return nil, fmt.Errorf("engine: read dispatch: %w", err)
		}
		// A result appended without SettleDispatch answers the call too
		// (the pairing rule): its outcome is known.
		if r, err := e.findToolResult(ctx, d.ThreadID, d.CallID, d.Seq); err != nil {
			return nil, err
		} else if r != nil {
			continue
		}
		out = append(out, *d)
	}
	return out, nil
}

// pendingDispatch reports whether call callID of the assistant message
// messageID is a dispatch whose outcome is unknown.
func (e *Engine) pendingDispatch(ctx context.Context, messageID, callID string) (bool, error) {
	pending, err := e.journal.DispatchPending(ctx, messageID, callID)
	if err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	return pending, nil
}

// unsettledText is the synthetic result of a dispatch of unknown outcome.
func (e *Engine) unsettledText() string {
	if e.cfg.UnsettledText != "" {
		return e.cfg.UnsettledText
	}
	return DefaultUnsettledText
}

// withUnsettled gives each call of unknown outcome (turn.Unsettled) its
// synthetic tool result, text, among the call's stored results (layout
// placed those right after the call), all of them in call order: a call
// whose other calls were answered gets its results in the order of its
// calls, as the pairer gives stored ones. The synthetic turn carries the
// call's thread, seq and time, reason journal.ReasonUnsettled and no
// message id: it is not stored. It is pure, so replay uses it too.
func withUnsettled(turns []turn, text string) []turn {
	n := 0
	for _, t := range turns {
		n += len(t.Unsettled)
	}
	if n == 0 {
		return turns
	}
	out := make([]turn, 0, len(turns)+n)
	for i := 0; i < len(turns); i++ {
		t := turns[i]
		out = append(out, t)
		if len(t.Unsettled) == 0 {
			continue
		}
		var stored []turn
		for i+1 < len(turns) && turns[i+1].Role == RoleTool && turns[i+1].Reason != journal.ReasonUnsettled {
			i++
			stored = append(stored, turns[i])
		}
		for _, tc := range t.ToolCalls {
			if j := slices.IndexFunc(stored, func(r turn) bool { return r.ToolCallID == tc.ID }); j >= 0 {
				out = append(out, stored[j])
				stored = slices.Delete(stored, j, j+1)
				continue
			}
			if !slices.Contains(t.Unsettled, tc.ID) {
				continue
			}
			m := Message{ThreadID: t.ThreadID, ResourceID: t.ResourceID, Seq: t.Seq, Role: RoleTool, Name: tc.Name,
				ToolCallID: tc.ID, Content: text, CreatedAt: t.CreatedAt}
			m.Tokens = tokens.Message(m.Content, m.Name, nil)
			out = append(out, turn{Message: m, Recent: t.Recent, Reason: journal.ReasonUnsettled, Unsettled: []string{t.ID}})
		}
		out = append(out, stored...) // none: layout keeps only a call's own results after it
	}
	return out
}

// unsettledRefs lists the synthetic results of turns for memctx: the call's
// message, seq and call id, reason "unsettled".
func unsettledRefs(turns []turn) []journal.Ref {
	var out []journal.Ref
	for _, t := range turns {
		if t.Reason == journal.ReasonUnsettled {
			out = append(out, journal.Ref{ThreadID: t.ThreadID, Seq: t.Seq, MessageID: t.Unsettled[0], Role: RoleTool,
				Preview: Preview(t.Message), Reason: journal.ReasonUnsettled, ToolCallID: t.ToolCallID})
		}
	}
	return out
}

// markUnsettled sets turn.Unsettled from a run's memctx record (replay).
func markUnsettled(turns []turn, refs []journal.Ref) {
	for _, r := range refs {
		for i := range turns {
			if turns[i].ID == r.MessageID && !slices.Contains(turns[i].Unsettled, r.ToolCallID) {
				turns[i].Unsettled = append(turns[i].Unsettled, r.ToolCallID)
			}
		}
	}
}
