package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestDispatchesOfMessages: DispatchesRequest.MessageIDs keeps the
// dispatches whose call one of the given messages makes, in the order
// and pages of the thread's list, on both backends (small64: the
// inspector read the thread's first 100 dispatches to mark the calls of
// a page); more than MaxPageLimit ids are refused naming the field.
func TestDispatchesOfMessages(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		var msgs []string
		for i := range 5 {
			d := beginCharge(t, e, "alice", "p", fmt.Sprintf("run-%d", i))
			msgs = append(msgs, d.MessageID)
			if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: d.RunID, ResourceID: "alice", CallID: d.CallID, Result: "paid"}); err != nil {
				t.Fatal(err)
			}
		}
		req := engine.DispatchesRequest{ThreadID: "p", MessageIDs: []string{msgs[4], msgs[1], msgs[3], "no-such-message"}, Limit: 2}
		var got []string
		for {
			ds, err := e.Dispatches(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				got = append(got, d.RunID)
			}
			if len(ds) < req.Limit {
				break
			}
			req.AfterRunID, req.AfterCallID = ds[len(ds)-1].RunID, ds[len(ds)-1].CallID
		}
		if fmt.Sprint(got) != "[run-1 run-3 run-4]" {
			t.Errorf("dispatches of messages 4, 1, 3: %v, want [run-1 run-3 run-4]", got)
		}
		_, err := e.Dispatches(ctx, engine.DispatchesRequest{ThreadID: "p", MessageIDs: make([]string, engine.MaxPageLimit+1)})
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "messageIds" {
			t.Errorf("%d message ids: %v, want a ValidationError on messageIds", engine.MaxPageLimit+1, err)
		}
	})
}
