package engine_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// copyThread appends thread's messages of src to dst under the same ids,
// as an import of an export does.
func copyThread(t *testing.T, src, dst *engine.Engine, resource, thread string) {
	t.Helper()
	ctx := context.Background()
	ms, err := src.Messages(ctx, thread, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	req := engine.AppendRequest{ThreadID: thread, ResourceID: resource}
	for _, m := range ms {
		req.Messages = append(req.Messages, engine.Message{ID: m.ID, Role: m.Role, Content: m.Content, Name: m.Name,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, CreatedAt: m.CreatedAt})
	}
	if _, err := dst.Append(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// restoreSource is a store of resource alice with three dispatches of
// call_0: pending in thread p (run-1), failed in f (run-2), and answered
// by a plain tool message in a (run-3), its call id then used again.
func restoreSource(t *testing.T, be enginetest.Backend) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	e := be.MustOpen(t, engine.Config{})
	beginCharge(t, e, "alice", "p", "run-1")
	beginCharge(t, e, "alice", "f", "run-2")
	if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "run-2", ResourceID: "alice", CallID: "call_0", Error: "card declined"}); err != nil {
		t.Fatal(err)
	}
	beginCharge(t, e, "alice", "a", "run-3")
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "a", ResourceID: "alice", Messages: []engine.Message{
		{ID: "a-result", Role: engine.RoleTool, ToolCallID: "call_0", Name: "charge_card", Content: "charged"},
		chargeCall("a-again", "call_0"),
		{ID: "a-again-result", Role: engine.RoleTool, ToolCallID: "call_0", Name: "charge_card", Content: "charged again"}}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDispatchRestore: the dispatches Dispatches reads from one store,
// restored with RestoreDispatch into another holding the same messages,
// read back the same (state, times, seqs, arguments), with the same
// unsettled call and its synthetic result; restoring again stores
// nothing. A store that lost the dispatches (as an export without them
// did, walk43 F1) dropped the pending call as unpaired.
func TestDispatchRestore(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		src, dst := restoreSource(t, be), be.MustOpen(t, engine.Config{})
		var all []engine.Dispatch
		for _, th := range []string{"p", "f", "a"} {
			copyThread(t, src, dst, "alice", th)
			ds, err := src.Dispatches(ctx, engine.DispatchesRequest{ThreadID: th, ResourceID: "alice", Limit: 1})
			if err != nil || len(ds) != 1 {
				t.Fatalf("dispatches of %s: %+v, %v", th, ds, err)
			}
			if more, err := src.Dispatches(ctx, engine.DispatchesRequest{ThreadID: th, AfterRunID: ds[0].RunID, AfterCallID: ds[0].CallID}); err != nil || len(more) != 0 {
				t.Fatalf("the page after the last of %s: %+v, %v", th, more, err)
			}
			all = append(all, ds...)
		}
		for round, want := range []bool{true, false} {
			for _, d := range all {
				if restored, err := dst.RestoreDispatch(ctx, d); err != nil || restored != want {
					t.Fatalf("round %d: restore %+v: %v, %v; want restored %v", round, d, restored, err, want)
				}
			}
		}
		for i, th := range []string{"p", "f", "a"} {
			got, err := dst.Dispatches(ctx, engine.DispatchesRequest{ThreadID: th})
			if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], all[i]) {
				t.Errorf("restored dispatch of %s:\n%+v (%v)\nwant\n%+v", th, got, err, all[i])
			}
			a, _ := src.Unsettled(ctx, th, "alice")
			z, err := dst.Unsettled(ctx, th, "alice")
			if err != nil || !reflect.DeepEqual(a, z) {
				t.Errorf("unsettled of %s: %+v (%v), want %+v", th, z, err, a)
			}
		}
		c, err := dst.LoadContext(ctx, engine.LoadRequest{ThreadID: "p", ResourceID: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if syn := unsettledIn(t, c, engine.DefaultUnsettledText); len(syn) != 1 || syn[0].ToolCallID != "call_0" {
			t.Errorf("the restored pending call's context: %+v", c.Messages)
		}
		// A call of run-1 of p again, as the agent would after the move:
		// the recorded dispatch, not a second one.
		if d, err := dst.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-1", ThreadID: "p", ResourceID: "alice", Message: chargeCall(all[0].MessageID, "call_0")}); err != nil || d.Settled || !d.BegunAt.Equal(all[0].BegunAt) {
			t.Errorf("begin again in the target: %+v, %v", d, err)
		}
	})
}

// TestDispatchRestoreRefused: RestoreDispatch refuses, storing nothing, a
// dispatch whose messages are not stored as it says, one stored otherwise,
// one whose run or call another holds, and one of another resource.
func TestDispatchRestoreRefused(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		src, dst := restoreSource(t, be), be.MustOpen(t, engine.Config{})
		ds := map[string]engine.Dispatch{}
		for _, th := range []string{"p", "f"} {
			copyThread(t, src, dst, "alice", th)
			got, err := src.Dispatches(ctx, engine.DispatchesRequest{ThreadID: th})
			if err != nil || len(got) != 1 {
				t.Fatal(got, err)
			}
			ds[th] = got[0]
		}
		if _, err := dst.RestoreDispatch(ctx, ds["p"]); err != nil {
			t.Fatal(err)
		}
		edit := func(th string, fn func(d *engine.Dispatch)) engine.Dispatch {
			d := ds[th]
			fn(&d)
			return d
		}
		later := time.Now().Add(time.Hour)
		for _, c := range []struct {
			name string
			d    engine.Dispatch
			want error
		}{
			{"call message not stored", edit("f", func(d *engine.Dispatch) { d.MessageID = "nope" }), engine.ErrInvalidInput},
			{"another tool", edit("f", func(d *engine.Dispatch) { d.Name = "refund" }), engine.ErrInvalidInput},
			{"result not a tool message", edit("f", func(d *engine.Dispatch) { d.ResultID = d.MessageID }), engine.ErrInvalidInput},
			{"settled without a time", edit("f", func(d *engine.Dispatch) { d.SettledAt = nil }), engine.ErrInvalidInput},
			{"pending with a result", edit("p", func(d *engine.Dispatch) { d.ResultID = "x" }), engine.ErrInvalidInput},
			{"no begin time", edit("f", func(d *engine.Dispatch) { d.BegunAt = time.Time{} }), engine.ErrInvalidInput},
			{"settled before begun", edit("f", func(d *engine.Dispatch) { t := d.BegunAt.Add(-time.Hour); d.SettledAt = &t }), engine.ErrInvalidInput},
			{"stored otherwise", edit("p", func(d *engine.Dispatch) { d.BegunAt = later }), engine.ErrDispatchConflict},
			{"stored otherwise (a conflict)", edit("p", func(d *engine.Dispatch) { d.BegunAt = later }), engine.ErrConflict},
			{"run of another thread", edit("f", func(d *engine.Dispatch) { d.RunID = "run-1" }), journal.ErrRunOwned},
			{"call held by another run", edit("p", func(d *engine.Dispatch) { d.RunID = "run-9" }), engine.ErrCallDispatched},
			{"another resource", edit("f", func(d *engine.Dispatch) { d.ResourceID = "bob" }), engine.ErrResourceMismatch},
			{"thread not stored", edit("f", func(d *engine.Dispatch) { d.ThreadID = "zz" }), engine.ErrThreadNotFound},
		} {
			if restored, err := dst.RestoreDispatch(ctx, c.d); !errors.Is(err, c.want) || restored {
				t.Errorf("%s: %v, %v; want %v", c.name, restored, err, c.want)
			}
		}
		if got, err := dst.Dispatches(ctx, engine.DispatchesRequest{ThreadID: "f"}); err != nil || len(got) != 0 {
			t.Errorf("a refusal stored %+v (%v)", got, err)
		}
		restoreMadeAgain(t, dst)
		if got, err := dst.Dispatches(ctx, engine.DispatchesRequest{ThreadID: "p"}); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], ds["p"]) {
			t.Errorf("the restored dispatch changed: %+v (%v)", got, err)
		}
		if _, err := src.DeleteResource(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		if got, err := src.Dispatches(ctx, engine.DispatchesRequest{ThreadID: "p"}); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Errorf("dispatches of an erased resource's thread: %+v, %v", got, err)
		}
	})
}

// restoreMadeAgain: a pending dispatch whose call a later message makes
// again with no tool message answering it in between is refused (tok48):
// no store holds one (the later call is refused while the dispatch is
// pending), only an edited file brings it, and its settlement would answer
// the later call, so SettleDispatch refused it. The later call is more
// than OpenCallWindow messages after the first, as an import accepts it.
// With a tool message in between it is restored, as a store holds it.
func restoreMadeAgain(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	msgs := []engine.Message{chargeCall("x-call", "call_0")}
	for i := 0; i <= engine.OpenCallWindow; i++ {
		msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: "still there?"})
	}
	later := []engine.Message{chargeCall("x-again", "call_0"), chargeCall("y-call", "call_1"),
		{ID: "y-result", Role: engine.RoleTool, ToolCallID: "call_1", Name: "charge_card", Content: "charged"},
		chargeCall("y-again", "call_1")}
	for _, ms := range [][]engine.Message{msgs, later} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "x", ResourceID: "alice", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	pending := engine.Dispatch{RunID: "run-x", CallID: "call_0", ThreadID: "x", ResourceID: "alice", Name: "charge_card",
		MessageID: "x-call", BegunAt: time.Now()}
	if restored, err := e.RestoreDispatch(ctx, pending); !errors.Is(err, engine.ErrDispatchConflict) || restored {
		t.Errorf("a pending dispatch whose call is made again unanswered: %v, %v; want ErrDispatchConflict", restored, err)
	}
	answered := pending
	answered.RunID, answered.CallID, answered.MessageID = "run-y", "call_1", "y-call"
	if restored, err := e.RestoreDispatch(ctx, answered); err != nil || !restored {
		t.Errorf("a pending dispatch whose call is answered, then made again: %v, %v; want restored", restored, err)
	}
	if got, err := e.Dispatches(ctx, engine.DispatchesRequest{ThreadID: "x"}); err != nil || len(got) != 1 || got[0].RunID != "run-y" {
		t.Errorf("dispatches of x: %+v (%v), want run-y's alone", got, err)
	}
}
