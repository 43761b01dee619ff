package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/legacyid"
)

// TestLegacyDotDispatchSettles: a dispatch begun, before ValidNewID, on
// thread ".." of resource "." (run ".", call ".") or on thread "t2" of
// resource "." is settled once the store is reopened under the rule:
// SettleDispatch looks its ids up (ValidID) instead of refusing them as
// new, so the dispatch does not stay pending for ever and no longer holds
// its call id on t2. A dispatch still pending on ".." (run r1) blocks no
// erasure: it goes with the thread (ErrDispatchErased after). SettleDispatch
// refused both with a *ValidationError on threadId or resourceId before.
func TestLegacyDotDispatchSettles(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		old := enginetest.MustOpen(t, st.Config(engine.Config{}))
		legacyid.Allow(old)
		for _, b := range []struct{ thread, run, call string }{{"..", ".", "."}, {"..", "r1", "call_1"}, {"t2", "r2", "call_0"}} {
			if _, err := old.Append(ctx, engine.AppendRequest{ThreadID: b.thread, ResourceID: ".",
				Messages: []engine.Message{{Role: engine.RoleUser, Content: "please pay the invoice"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := old.BeginDispatch(ctx, engine.DispatchIntent{RunID: b.run, ThreadID: b.thread, ResourceID: ".",
				Message: chargeCall("", b.call)}); err != nil {
				t.Fatalf("begin %+v: %v", b, err)
			}
		}
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}
		e := enginetest.MustOpen(t, st.Config(engine.Config{}))

		if us, err := e.Unsettled(ctx, "..", "."); err != nil || len(us) != 2 {
			t.Fatalf("Unsettled(..) = %d, %v; want 2", len(us), err)
		}
		again := engine.AppendRequest{ThreadID: "t2", Messages: []engine.Message{chargeCall("m-again", "call_0")}}
		if _, err := e.Append(ctx, again); !errors.Is(err, engine.ErrDispatchPending) {
			t.Fatalf("a new call_0 on t2 while its dispatch is pending: %v, want ErrDispatchPending", err)
		}
		for _, s := range []engine.Settlement{
			{RunID: ".", ResourceID: ".", CallID: ".", Result: "paid"},
			{RunID: ".", ResourceID: ".", CallID: ".", Result: "paid"}, // again: the same outcome
			{RunID: "r2", ResourceID: ".", CallID: "call_0", Result: "paid"},
		} {
			d, err := e.SettleDispatch(ctx, s)
			if err != nil || !d.Settled {
				t.Fatalf("SettleDispatch(%+v) = %+v, %v; want settled", s, d, err)
			}
		}
		if us, err := e.Unsettled(ctx, "..", "."); err != nil || len(us) != 1 || us[0].RunID != "r1" {
			t.Fatalf("Unsettled(..) after the settlement = %+v, %v; want run r1's", us, err)
		}
		if ms, err := e.Messages(ctx, "..", 0, 0); err != nil || len(ms) != 5 || ms[4].Content != "paid" || ms[4].ToolCallID != "." {
			t.Fatalf("Messages(..) = %+v, %v; want the result of call . last", ms, err)
		}
		if _, err := e.Append(ctx, again); err != nil {
			t.Fatalf("a new call_0 on t2 once its dispatch is settled: %v", err)
		}

		if _, err := e.DeleteThread(ctx, ".."); err != nil {
			t.Fatalf("DeleteThread(..) with a pending dispatch: %v", err)
		}
		_, err := e.SettleDispatch(ctx, engine.Settlement{RunID: "r1", ResourceID: ".", CallID: "call_1", Result: "paid"})
		if !errors.Is(err, engine.ErrDispatchErased) {
			t.Fatalf("SettleDispatch of the erased thread's dispatch: %v, want ErrDispatchErased", err)
		}
	})
}
