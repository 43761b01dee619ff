package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/journal"
)

// turn is a message on its way into a Context: from the recent window, or
// recalled (Reason hit, range or repair), with its recall scores.
type turn struct {
	Message
	Recent                 bool
	Reason                 string   // journal.ReasonHit, ReasonRange, ReasonRepair; "" for the recent window
	Score, Lexical, Vector *float64 // set on recall hits
	// Unsettled are the ids of this assistant turn's calls whose outcome
	// is unknown: dispatches never settled (dispatch.go), and the turn's
	// other calls without a result when it has such a dispatch. They travel
	// without a stored result and get a synthetic one (withUnsettled).
	Unsettled []string
}

// dropped is a turn left out of the prompt, with the reason.
type dropped struct {
	turn
	why string
}

// The pairing rule. Agents reuse tool-call ids (call_0 in every turn), so an
// id alone does not say which call a result answers. Within a thread, a tool
// result for id X answers the assistant message that made a call X nearest
// before it, and a call X is answered by the first result for X after it —
// in both directions provided no other call X and no other result for X lies
// strictly between them. So every result answers at most one call and every
// call has at most one result; a second result for one call answers nothing
// (an orphan).

// pairer applies the pairing rule for one LoadContext: it finds partners
// (in the turns at hand when they cover the span between the two, otherwise
// in the store), and remembers across the repair passes of the run which
// messages could not be paired, so that a turn dropped from the recent window
// is not brought back by recall.
type pairer struct {
	e       *Engine
	calls   map[string]*Message // result message id -> its call, nil when none
	results map[string]*Message // call message id + "\x00" + call id -> its result, nil when none
	banned  map[string]bool     // message ids that cannot be paired
	pending map[string]bool     // call message id + "\x00" + call id -> a dispatch of unknown outcome
	budget  *pairBudget         // the bytes the partners it reads may hold; nil: no bound
}

func (e *Engine) newPairer() *pairer {
	return &pairer{e: e, calls: map[string]*Message{}, results: map[string]*Message{}, banned: map[string]bool{}, pending: map[string]bool{}}
}

// turnSet is a set of turns by thread and seq, in insertion order.
type turnSet struct {
	byKey map[turnKey]*turn
	order []turnKey
	gone  map[turnKey]bool // dropped (still in order)
}

// newTurnSet is the set of ts, which it keeps (the set's turns are ts's
// elements: the caller no longer uses ts).
func newTurnSet(ts []turn) *turnSet {
	s := &turnSet{byKey: make(map[turnKey]*turn, len(ts)), gone: map[turnKey]bool{}}
	for i := range ts {
		s.add(&ts[i])
	}
	return s
}

// add inserts *t, which the set keeps and may change (the caller no longer
// uses it: a copy of every turn was ~7 KB a LoadContext, issue 14); a turn
// already present stays, except that the recent window wins over recall.
func (s *turnSet) add(t *turn) {
	k := turnKey{t.ThreadID, t.Seq}
	if old, ok := s.byKey[k]; ok {
		if t.Recent && !old.Recent {
			old.Recent, old.Reason = true, ""
		}
		return
	}
	if !s.gone[k] { // a turn dropped earlier keeps its place
		s.order = append(s.order, k)
	}
	s.byKey[k] = t
}

// kept returns the turns in the set, in insertion order.
func (s *turnSet) kept() []turn {
	out := make([]turn, 0, len(s.byKey))
	for _, k := range s.order {
		if t, ok := s.byKey[k]; ok {
			out = append(out, *t)
		}
	}
	return out
}

// repairPairs enforces the provider's tool-call rule on a set of turns
// (DESIGN.md, read path step 3): an assistant message with tool calls goes in
// only with all of its results, a tool result only with its call, partners
// found by the pairing rule above. A missing partner is pulled in from the
// store when it exists (reason "repair"; in the recent window the window
// extends back to the call); otherwise the message is dropped with reason
// "unpaired-tool-call" or "orphan-tool-result", and the rest of its group
// goes with it. Each turn is kept or dropped once.
//
// The window is repaired first; then more (nil: none) is asked for further
// turns (recall) with the ids of every turn the window holds, pulled in or
// dropped, so that it excludes them, and what it returns is repaired with
// the window. The window's turns are settled by then: the second pass keeps
// them as they are (their partners are known and present).
//
// Rule chosen for the recent window's lower edge: extend back to the call.
// A window that would start with a tool result pulls in its assistant call
// (and so the call's other results), since dropping a result the model asked
// for loses more than the few tokens of the call. The extension is bounded by
// one tool-call group.
func (p *pairer) repairPairs(ctx context.Context, window []turn, more func(context.Context, map[string]bool) ([]turn, error)) ([]turn, []dropped, error) {
	set := newTurnSet(window)
	drops, err := p.settle(ctx, set)
	if err != nil || more == nil {
		return set.kept(), drops, err
	}
	exclude := make(map[string]bool, len(set.order))
	for _, t := range set.byKey {
		exclude[t.ID] = true
	}
	for _, d := range drops {
		exclude[d.ID] = true
	}
	extra, err := more(ctx, exclude)
	if err != nil {
		return nil, nil, err
	}
	for i := range extra {
		set.add(&extra[i])
	}
	later, err := p.settle(ctx, set)
	return set.kept(), append(drops, later...), err
}

// settle repairs set until every turn in it has its partners (or was
// dropped), and returns the turns it dropped, in the order it dropped them.
func (p *pairer) settle(ctx context.Context, set *turnSet) ([]dropped, error) {
	var out []dropped
	drop := func(k turnKey, why string) {
		t := set.byKey[k]
		p.banned[t.ID] = true
		out = append(out, dropped{turn: *t, why: why})
		delete(set.byKey, k)
		set.gone[k] = true
	}
	for changed := true; changed; {
		changed = false
		for _, k := range set.order {
			t, ok := set.byKey[k]
			if !ok {
				continue
			}
			partners, err := p.partners(ctx, set, t)
			if err != nil {
				return nil, err
			}
			// A call of unknown outcome keeps its message, and with it the
			// message's other calls that have no result either (never begun,
			// or begun without the journal: unknown as well). Dropping the
			// message would hide the unknown outcome from the model.
			unknown := t.Role == RoleAssistant && slices.Contains(partners, unsettledResult)
			for i, m := range partners {
				if m == unsettledResult || (m == nil && unknown) {
					if !slices.Contains(t.Unsettled, t.ToolCalls[i].ID) {
						t.Unsettled = append(t.Unsettled, t.ToolCalls[i].ID)
					}
					continue
				}
				if m == nil || p.banned[m.ID] {
					why := journal.ReasonOrphanToolResult
					if t.Role == RoleAssistant {
						why = journal.ReasonUnpairedToolCall
					}
					drop(k, why)
					changed = true
					break
				}
				if _, ok := set.byKey[turnKey{m.ThreadID, m.Seq}]; !ok {
					set.add(&turn{Message: *m, Recent: t.Recent, Reason: repairReason(t.Recent)})
					changed = true
				}
			}
		}
	}
	return out, nil
}

// partners returns the messages t must travel with: the result of each of
// an assistant message's calls, or a tool result's call; a nil element is a
// partner that does not exist. Other turns have none.
func (p *pairer) partners(ctx context.Context, set *turnSet, t *turn) ([]*Message, error) {
	switch {
	case t.Role == RoleTool:
		c, err := p.callOf(ctx, set, t)
		return []*Message{c}, err
	case t.Role == RoleAssistant && len(t.ToolCalls) > 0:
		out := make([]*Message, len(t.ToolCalls))
		for i, tc := range t.ToolCalls {
			r, err := p.resultOf(ctx, set, t, tc.ID)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return nil, nil
}

func repairReason(recent bool) string {
	if recent {
		return ""
	}
	return journal.ReasonRepair
}

// turnKey identifies a turn by thread and seq.
type turnKey struct {
	thread string
	seq    int64
}

// maxLocalSpan bounds how far the pairer walks the turns at hand before it
// asks the store.
const maxLocalSpan = 64

// callOf returns the call that the tool result t answers, or nil.
func (p *pairer) callOf(ctx context.Context, set *turnSet, t *turn) (*Message, error) {
	if c, ok := p.calls[t.ID]; ok {
		return c, nil
	}
	if c, ok := localCall(set, t); ok {
		p.calls[t.ID] = c
		return c, nil
	}
	c, err := p.storedCall(ctx, t.ThreadID, t.ToolCallID, t.Seq)
	if err != nil {
		return nil, err
	}
	p.calls[t.ID] = c
	return c, nil
}

// localCall walks back from the tool result t through the turns of set
// while they are contiguous, at most maxLocalSpan of them: the nearest
// call for its id, or another result for it first, decides (c, nil when
// it answers none); so does the thread's first message (seq 1) reached
// with neither (nil). ok is false when the walk left the turns at hand
// undecided: the store decides.
func localCall(set *turnSet, t *turn) (c *Message, ok bool) {
	for s := t.Seq - 1; s >= t.Seq-maxLocalSpan; s-- {
		if s <= 0 {
			return nil, true
		}
		u, ok := set.byKey[turnKey{t.ThreadID, s}]
		if !ok {
			return nil, false
		}
		if u.Role == RoleTool && u.ToolCallID == t.ToolCallID {
			return nil, true
		}
		if hasCall(u.Message, t.ToolCallID) {
			return &u.Message, true
		}
	}
	return nil, false
}

// unsettledResult stands for the result of a dispatched call whose outcome
// is unknown: it is never stored, and withUnsettled renders it.
var unsettledResult = &Message{Role: RoleTool}

// resultOf returns the result of call callID of the assistant message t;
// unsettledResult when there is none but the call is a dispatch of unknown
// outcome (recognised before the call could be dropped as unpaired); or
// nil.
func (p *pairer) resultOf(ctx context.Context, set *turnSet, t *turn, callID string) (*Message, error) {
	r, err := p.storedResultOf(ctx, set, t, callID)
	if r != nil || err != nil {
		return r, err
	}
	key := t.ID + "\x00" + callID
	if _, ok := p.pending[key]; !ok {
		if p.pending[key], err = p.e.pendingDispatch(ctx, t.ID, callID); err != nil {
			return nil, err
		}
	}
	if p.pending[key] {
		return unsettledResult, nil
	}
	return nil, nil
}

// storedResultOf returns the stored result of call callID of the assistant
// message t, or nil.
func (p *pairer) storedResultOf(ctx context.Context, set *turnSet, t *turn, callID string) (*Message, error) {
	key := t.ID + "\x00" + callID
	if r, ok := p.results[key]; ok {
		return r, nil
	}
	for s := t.Seq + 1; s <= t.Seq+maxLocalSpan; s++ {
		u, ok := set.byKey[turnKey{t.ThreadID, s}]
		if !ok {
			break
		}
		if u.Role == RoleTool && u.ToolCallID == callID {
			p.results[key] = &u.Message
			return &u.Message, nil
		}
		if hasCall(u.Message, callID) {
			p.results[key] = nil
			return nil, nil
		}
	}
	r, err := p.storedResult(ctx, t.ThreadID, callID, t.Seq)
	if err != nil {
		return nil, err
	}
	p.results[key] = r
	return r, nil
}

func hasCall(m Message, callID string) bool {
	if m.Role != RoleAssistant {
		return false
	}
	for _, tc := range m.ToolCalls {
		if tc.ID == callID {
			return true
		}
	}
	return false
}

// findToolResult returns the result of the call callID made at seq callSeq
// in the thread (the pairing rule), or nil.
func (e *Engine) findToolResult(ctx context.Context, thread, callID string, callSeq int64) (*Message, error) {
	r, ok, err := e.ms.ToolResult(ctx, thread, callID, callSeq)
	return e.pairedMessage(r, ok, err)
}

// pairedMessage converts a pairing lookup's answer: nil when there is none.
func (e *Engine) pairedMessage(r msgstore.Message, ok bool, err error) (*Message, error) {
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if !ok {
		return nil, nil
	}
	m, err := messageFromRow(r)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &m, nil
}

// pairInSet pairs the tool results among turns with their calls among turns
// by the pairing rule, looking only at turns: result -> call. It is exact
// for a set that repairPairs left (every kept turn's partners are kept), and
// pure, so replay uses it too. A result without its call in turns is absent.
func pairInSet(turns []turn) map[turnKey]turnKey {
	bySeq := make([]*turn, len(turns))
	for i := range turns {
		bySeq[i] = &turns[i]
	}
	sort.SliceStable(bySeq, func(i, j int) bool {
		if bySeq[i].ThreadID != bySeq[j].ThreadID {
			return bySeq[i].ThreadID < bySeq[j].ThreadID
		}
		return bySeq[i].Seq < bySeq[j].Seq
	})
	out := map[turnKey]turnKey{}
	open := map[string]turnKey{} // thread + "\x00" + call id -> the call awaiting its result
	for _, t := range bySeq {
		k := turnKey{t.ThreadID, t.Seq}
		if t.Role == RoleTool {
			id := t.ThreadID + "\x00" + t.ToolCallID
			if c, ok := open[id]; ok {
				out[k] = c
				delete(open, id)
			}
			continue
		}
		for _, tc := range t.ToolCalls {
			open[t.ThreadID+"\x00"+tc.ID] = k
		}
	}
	return out
}

// layout orders turns for the prompt: recalled turns first, grouped by thread
// (threads in order of their first turn's time, the current thread last) and
// by seq within a thread, then the recent window in seq order. Tool results
// are then moved to immediately follow their call, in call order, so that
// every assistant tool-call message is followed by exactly its results.
// It sorts turns in place and may return them (both callers replace them
// with the result).
func layout(turns []turn, currentThread string) []turn {
	firstAt := map[string]int64{}
	for _, t := range turns {
		if at, ok := firstAt[t.ThreadID]; !ok || t.CreatedAt.UnixMilli() < at {
			firstAt[t.ThreadID] = t.CreatedAt.UnixMilli()
		}
	}
	sorted := turns
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Recent != b.Recent {
			return !a.Recent
		}
		if a.ThreadID != b.ThreadID {
			if (a.ThreadID == currentThread) != (b.ThreadID == currentThread) {
				return b.ThreadID == currentThread
			}
			if firstAt[a.ThreadID] != firstAt[b.ThreadID] {
				return firstAt[a.ThreadID] < firstAt[b.ThreadID]
			}
			return a.ThreadID < b.ThreadID
		}
		return a.Seq < b.Seq
	})
	if !slices.ContainsFunc(sorted, func(t turn) bool { return t.Role == RoleTool }) {
		return sorted // no result to move
	}
	callOf := pairInSet(sorted)
	results := map[turnKey]map[string]int{} // call -> call id -> its result's index in sorted
	for i, t := range sorted {
		if c, ok := callOf[turnKey{t.ThreadID, t.Seq}]; ok {
			if results[c] == nil {
				results[c] = map[string]int{}
			}
			results[c][t.ToolCallID] = i
		}
	}
	out := laidOut{src: sorted}
	for i, t := range sorted {
		if t.Role == RoleTool {
			continue // emitted after its call; repairPairs left no orphan
		}
		out.add(i)
		for _, tc := range t.ToolCalls {
			if r, ok := results[turnKey{t.ThreadID, t.Seq}][tc.ID]; ok {
				out.add(r)
			}
		}
	}
	return out.turns()
}

// laidOut is layout's output, built from src's turns by index: while they
// come in src's order it is a prefix of src, and only the first turn out of
// order copies it (results are mostly stored right after their calls, so
// most layouts copy nothing: the copy was ~7 KB a LoadContext, issue 14).
type laidOut struct {
	src      []turn
	n        int    // src[:n] is the output so far, while out is nil
	out      []turn // the output, once it left src's order
	diverged bool
}

// add appends src[i].
func (o *laidOut) add(i int) {
	if !o.diverged && i == o.n {
		o.n++
		return
	}
	if !o.diverged {
		o.out = make([]turn, o.n, len(o.src))
		copy(o.out, o.src[:o.n])
		o.diverged = true
	}
	o.out = append(o.out, o.src[i])
}

// turns is the output.
func (o *laidOut) turns() []turn {
	if !o.diverged {
		return o.src[:o.n]
	}
	return o.out
}
