package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// dispatchTraffic is one random history of TestPairingDispatchProperty:
// the thread, the dispatches begun (with their messages) and a source of
// randomness.
type dispatchTraffic struct {
	t      *testing.T
	e      *engine.Engine
	r      *rand.Rand
	thread string
	begun  []engine.DispatchIntent
	step   int
}

// TestPairingDispatchProperty checks the pairing invariant under dispatch
// traffic: random BeginDispatch (call ids from a pool of two, reused; by
// another run on a call already begun, too),
// plain tool answers and calls appended with Append, SettleDispatch of any
// dispatch begun (again, late, with another outcome), and DeleteMessages
// of calls and results. After every step:
//
//   - a settlement that is stored answers its own dispatch's call (the
//     pairing rule), never a later call and never as a second result;
//   - every dispatch Unsettled lists can still be settled: its call is the
//     latest with its id and nothing answers it (none is stuck);
//   - the context is accepted by an OpenAI-style API, each stored result
//     follows the call it answers, and the synthetic "outcome unknown"
//     results are exactly those of the Unsettled dispatches and of their
//     messages' other calls without a result (never dropped as unpaired).
//
// At the end every unsettled dispatch is settled, and none is left.
func TestPairingDispatchProperty(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		e := be.MustOpen(t, engine.Config{})
		histories := 16
		if be.Name == enginetest.Postgres.Name {
			histories = 6 // each step is several round trips to the server
		}
		for h := range histories {
			d := &dispatchTraffic{t: t, e: e, r: rand.New(rand.NewPCG(uint64(h), 15)), thread: fmt.Sprintf("d%d", h)}
			for d.step = range 40 {
				d.randomStep()
				d.check()
			}
			d.settleAll()
		}
	})
}

// randomStep runs one random operation and checks its error is one the
// operation documents.
func (d *dispatchTraffic) randomStep() {
	ctx := context.Background()
	ids := []string{"call_0", "call_1"}
	switch op := d.r.IntN(10); op {
	case 0:
		d.append(engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("request %d", d.step)})
	case 1, 2, 3:
		in := engine.DispatchIntent{RunID: fmt.Sprintf("%s-r%d", d.thread, d.step), ThreadID: d.thread, ResourceID: "ana", Message: d.call(ids)}
		in.CallID = in.Message.ToolCalls[d.r.IntN(len(in.Message.ToolCalls))].ID
		if op == 3 && len(d.begun) > 0 { // begin a dispatch again
			in = d.begun[d.r.IntN(len(d.begun))]
		}
		if op == 2 && len(d.begun) > 0 && d.r.IntN(2) == 0 { // another run's dispatch of a begun call
			run := in.RunID
			in = d.begun[d.r.IntN(len(d.begun))]
			in.RunID = run
			op = 1
		}
		got, err := d.e.BeginDispatch(ctx, in)
		d.allow("BeginDispatch", err, engine.ErrDispatchPending, engine.ErrConflict, engine.ErrDispatchErased,
			engine.ErrCallDispatched, engine.ErrDispatchAnswered, engine.ErrCallOpen)
		d.checkCallOpen(err, in.Message)
		if err == nil && op != 3 {
			in.Message.ID = got.MessageID // begun again, it names the same message
			d.begun = append(d.begun, in)
		}
	case 4, 5:
		d.append(engine.Message{Role: engine.RoleTool, ToolCallID: ids[d.r.IntN(2)], Name: "send_email", Content: fmt.Sprintf("plain %d", d.step)})
	case 6, 7:
		if len(d.begun) == 0 {
			return
		}
		in := d.begun[d.r.IntN(len(d.begun))]
		s := engine.Settlement{RunID: in.RunID, ResourceID: "ana", CallID: in.CallID}
		if d.r.IntN(3) == 0 {
			s.Error = "bounced"
		} else {
			s.Result = []string{"sent", "sent late"}[d.r.IntN(2)]
		}
		got, err := d.e.SettleDispatch(ctx, s)
		d.allow("SettleDispatch", err, engine.ErrConflict, engine.ErrDispatchAnswered, engine.ErrDispatchErased)
		if err == nil {
			d.checkSettlement(got)
		}
	case 8:
		ms := d.messages()
		var ids []string
		for _, m := range ms {
			if m.Role == engine.RoleTool || len(m.ToolCalls) > 0 {
				ids = append(ids, m.ID)
			}
		}
		if len(ids) > 0 {
			if _, err := d.e.DeleteMessages(ctx, ids[d.r.IntN(len(ids))]); err != nil {
				d.t.Fatalf("step %d: DeleteMessages: %v", d.step, err)
			}
		}
	case 9:
		m := d.call(ids)
		_, err := d.e.Append(ctx, engine.AppendRequest{ThreadID: d.thread, ResourceID: "ana", Messages: []engine.Message{m}})
		d.allow("Append of a call", err, engine.ErrDispatchPending, engine.ErrCallOpen)
		d.checkCallOpen(err, m)
	}
}

// checkCallOpen checks that an ErrCallOpen refusal of m is right: the
// call it names is m's and, by the pairing rule, the thread's latest call
// with its id has no result after it.
func (d *dispatchTraffic) checkCallOpen(err error, m engine.Message) {
	d.t.Helper()
	var oe *engine.CallOpenError
	if !errors.As(err, &oe) {
		return
	}
	ms := d.messages()
	if oe.Index != 0 || oe.CallIndex >= len(m.ToolCalls) || m.ToolCalls[oe.CallIndex].ID != oe.CallID || !callOpen(ms, oe.CallID, oe.Seq) {
		d.t.Fatalf("step %d: refusal %+v (%v) of %+v: the call is not open in %s", d.step, oe, err, m, describeStored(ms))
	}
}

// callOpen reports whether the latest message of ms making call id is at
// seq and no tool message for id follows it.
func callOpen(ms []engine.Message, id string, seq int64) bool {
	latest := int64(0)
	for _, m := range ms {
		if m.Role == engine.RoleTool && m.ToolCallID == id {
			latest = 0
		}
		if slices.ContainsFunc(m.ToolCalls, func(c engine.ToolCall) bool { return c.ID == id }) {
			latest = m.Seq
		}
	}
	return latest != 0 && latest == seq
}

// call is an assistant message making one or two calls with ids from ids.
func (d *dispatchTraffic) call(ids []string) engine.Message {
	m := engine.Message{Role: engine.RoleAssistant}
	for _, i := range d.r.Perm(len(ids))[:1+d.r.IntN(2)] {
		m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: ids[i], Name: "send_email",
			Arguments: json.RawMessage(fmt.Sprintf(`{"to":"p%d"}`, d.r.IntN(100)))})
	}
	return m
}

func (d *dispatchTraffic) append(m engine.Message) {
	if _, err := d.e.Append(context.Background(), engine.AppendRequest{ThreadID: d.thread, ResourceID: "ana", Messages: []engine.Message{m}}); err != nil {
		d.t.Fatalf("step %d: append %+v: %v", d.step, m, err)
	}
}

// allow fails the test unless err is nil or one of allowed.
func (d *dispatchTraffic) allow(op string, err error, allowed ...error) {
	d.t.Helper()
	if err == nil || slices.ContainsFunc(allowed, func(a error) bool { return errors.Is(err, a) }) {
		return
	}
	d.t.Fatalf("step %d: %s: %v", d.step, op, err)
}

func (d *dispatchTraffic) messages() []engine.Message {
	ms, err := d.e.Messages(context.Background(), d.thread, 1, 0)
	if err != nil && !errors.Is(err, engine.ErrThreadNotFound) {
		d.t.Fatal(err)
	}
	return ms
}

// checkSettlement checks that the settled dispatch's result answers its
// call by the pairing rule.
func (d *dispatchTraffic) checkSettlement(got *engine.Dispatch) {
	d.t.Helper()
	ms := d.messages()
	p := truePairing(ms)
	for _, m := range ms {
		if m.ID == got.ResultID {
			if c, ok := p.callOf[m.Seq]; !ok || c != got.Seq {
				d.t.Fatalf("step %d: the settlement of %s/%s (seq %d) answers seq %d (paired %v): %s",
					d.step, got.RunID, got.CallID, m.Seq, c, ok, describeStored(ms))
			}
			return
		}
	}
	d.t.Fatalf("step %d: the settlement %s of %s/%s is not stored", d.step, got.ResultID, got.RunID, got.CallID)
}

// check checks the invariants of TestPairingDispatchProperty after a step.
func (d *dispatchTraffic) check() {
	d.t.Helper()
	ctx := context.Background()
	ms := d.messages()
	if len(ms) == 0 {
		return
	}
	us, err := d.e.Unsettled(ctx, d.thread, "ana")
	if err != nil {
		d.t.Fatal(err)
	}
	p := truePairing(ms)
	unknown := map[string]bool{} // call message id + call id
	for _, u := range us {
		unknown[u.MessageID+"/"+u.CallID] = true
		if !settleable(ms, p, u) {
			d.t.Fatalf("step %d: unsettled dispatch %s/%s of seq %d can never be settled: %s", d.step, u.RunID, u.CallID, u.Seq, describeStored(ms))
		}
	}
	c, err := d.e.LoadContext(ctx, engine.LoadRequest{ThreadID: d.thread, ResourceID: "ana", RecentN: 100})
	if err != nil {
		d.t.Fatal(err)
	}
	checkProviderRule(d.t, c.Messages)
	lastCall := engine.ContextMessage{}
	shown := map[string]bool{}
	for _, m := range c.Messages {
		switch {
		case m.Role != engine.RoleTool:
			lastCall = m
		case m.Reason == journal.ReasonUnsettled:
			shown[lastCall.MessageID+"/"+m.ToolCallID] = true
		default:
			if callSeq, ok := p.callOf[m.Seq]; !ok || callSeq != lastCall.Seq {
				d.t.Fatalf("step %d: result seq %d follows call seq %d but answers seq %d (paired %v): %s",
					d.step, m.Seq, lastCall.Seq, callSeq, ok, describe(c.Messages))
			}
		}
	}
	// A dispatched call's message keeps its other calls without a result,
	// as of unknown outcome too.
	for k := range shown {
		msgID, callID, _ := strings.Cut(k, "/")
		if unknown[k] || !slices.ContainsFunc(us, func(u engine.Dispatch) bool { return u.MessageID == msgID }) {
			continue
		}
		for _, m := range ms {
			if m.ID == msgID && slices.ContainsFunc(m.ToolCalls, func(tc engine.ToolCall) bool { return tc.ID == callID }) {
				unknown[k] = true
			}
		}
	}
	if fmt.Sprint(shown) != fmt.Sprint(unknown) {
		d.t.Fatalf("step %d: outcome-unknown results shown for %v, Unsettled lists %+v: %s\nstored: %s", d.step, shown, us, describe(c.Messages), describeStored(ms))
	}
}

// settleable reports whether a settlement of u would answer u's call: the
// call is stored, no later message makes its id, and nothing answers it.
func settleable(ms []engine.Message, p pairing, u engine.Dispatch) bool {
	call, ok := p.byseq[u.Seq]
	if !ok || call.ID != u.MessageID {
		return false
	}
	for _, m := range ms {
		if m.Seq > u.Seq && slices.ContainsFunc(m.ToolCalls, func(tc engine.ToolCall) bool { return tc.ID == u.CallID }) {
			return false
		}
		if c, ok := p.callOf[m.Seq]; ok && c == u.Seq && m.ToolCallID == u.CallID {
			return false
		}
	}
	return true
}

// settleAll settles every unsettled dispatch of the thread: each must be
// accepted, and none is left.
func (d *dispatchTraffic) settleAll() {
	ctx := context.Background()
	us, err := d.e.Unsettled(ctx, d.thread, "ana")
	if err != nil && !errors.Is(err, engine.ErrThreadNotFound) {
		d.t.Fatal(err)
	}
	for _, u := range us {
		got, err := d.e.SettleDispatch(ctx, engine.Settlement{RunID: u.RunID, ResourceID: "ana", CallID: u.CallID, Result: "reconciled"})
		if err != nil {
			d.t.Fatalf("%s: settling unsettled %s/%s: %v", d.thread, u.RunID, u.CallID, err)
		}
		d.checkSettlement(got)
	}
	if us, err := d.e.Unsettled(ctx, d.thread, "ana"); err == nil && len(us) != 0 {
		d.t.Fatalf("%s: still unsettled after settling all: %+v", d.thread, us)
	}
}

// describeStored is describe for stored messages.
func describeStored(ms []engine.Message) string {
	out := ""
	for _, m := range ms {
		out += fmt.Sprintf("%d:%s", m.Seq, m.Role)
		for _, tc := range m.ToolCalls {
			out += "→" + tc.ID
		}
		if m.ToolCallID != "" {
			out += "←" + m.ToolCallID
		}
		out += " "
	}
	return out
}

// A message making two calls, the first dispatched and of unknown outcome,
// the second answered: the results follow in call order, the synthetic one
// first. Before, the synthetic result came after the stored ones (found by
// TestPairingDispatchProperty).
func TestDispatchUnknownBeforeAnsweredCall(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		m := emailCall("bob")
		m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana", Message: m, CallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "ana", Messages: []engine.Message{
			{Role: engine.RoleTool, ToolCallID: "call_1", Name: "lookup", Content: "found"}}}); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", ResourceID: "ana"})
		if err != nil {
			t.Fatal(err)
		}
		checkProviderRule(t, c.Messages)
		if got, want := describe(c.Messages), "t1:1:assistant→call_0→call_1 t1:1:tool←call_0(unsettled) t1:2:tool←call_1 "; got != want {
			t.Fatalf("context\n got %s\nwant %s", got, want)
		}
	})
}

// A message making two calls, the first dispatched and of unknown outcome
// (the process died after BeginDispatch), the second never handled: the
// message is kept, both calls with an outcome-unknown result, listed in
// memctx.unsettled. Before, the unanswered second call made the whole
// message unpaired: it was dropped, and the model never learnt that the
// e-mail may have gone out.
func TestDispatchUnknownWithUnhandledSibling(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		m := emailCall("bob")
		m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "r1", ThreadID: "t1", ResourceID: "ana", Message: m, CallID: "call_0"}); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", ResourceID: "ana"})
		if err != nil {
			t.Fatal(err)
		}
		checkProviderRule(t, c.Messages)
		if got, want := describe(c.Messages), "t1:1:assistant→call_0→call_1 t1:1:tool←call_0(unsettled) t1:1:tool←call_1(unsettled) "; got != want {
			t.Fatalf("context\n got %s\nwant %s (dropped %+v)", got, want, c.MemCtx.Dropped)
		}
		if u := c.MemCtx.Unsettled; len(u) != 2 || u[0].ToolCallID != "call_0" || u[1].ToolCallID != "call_1" || len(c.MemCtx.Dropped) != 0 {
			t.Fatalf("memctx unsettled %+v, dropped %+v", u, c.MemCtx.Dropped)
		}
		rp, err := e.Replay(ctx, c.RunID, engine.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rp.Original.PromptHash != c.MemCtx.PromptHash {
			t.Fatalf("replay hash %s, recorded %s", rp.Original.PromptHash, c.MemCtx.PromptHash)
		}
		// Once the dispatch is settled the sibling has no unknown outcome
		// to travel with: the message waits for its other result.
		if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: "ana", CallID: "call_0", Result: "sent"}); err != nil {
			t.Fatal(err)
		}
		shown, dropped := shownCalls(t, e)
		if shown != "" || len(dropped) != 2 || dropped[0].Reason != journal.ReasonUnpairedToolCall {
			t.Fatalf("after settling: shown %q, dropped %+v", shown, dropped)
		}
	})
}
