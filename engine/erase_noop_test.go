package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestEraseNothing: an erasure that finds nothing to erase (a resource
// with nothing stored, message ids none of which is stored) changes no
// row, so it writes no marker, runs no physical purge (no REINDEX, no
// bleve merge, no checkpoint) and publishes no erased event; its result is
// empty with Purge 0. One that erases something still purges. Before,
// DeleteResource("nobody") paid the whole purge, index rebuild included
// (`mnemo delete --resource nobody --yes`: "erased 0 messages … purged in
// 112ms (… indexes rebuilt …)").
func TestEraseNothing(t *testing.T) {
	ctx := context.Background()
	events := make(chan engine.Event, 16)
	e := enginetest.MustOpen(t, engine.Config{Events: events})
	say(t, e, "r", "t", "the locker code is 58-21-77")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	before := engine.Purges(e)
	res, err := e.DeleteResource(ctx, "nobody")
	if err != nil {
		t.Fatal(err)
	}
	if res.Purge != 0 || res.IndexesRebuilt || len(res.Messages)+len(res.Threads) != 0 {
		t.Fatalf("DeleteResource(nobody): %+v", res)
	}
	res, err = e.DeleteMessages(ctx, "no-such-message")
	if err != nil {
		t.Fatal(err)
	}
	if res.Purge != 0 || len(res.NotFound) != 1 {
		t.Fatalf("DeleteMessages(no-such-message): %+v", res)
	}
	if got := engine.Purges(e); got != before {
		t.Fatalf("%d physical purges for erasures that erased nothing", got-before)
	}
	if n := erasingMarkers(t, e); n != 0 {
		t.Fatalf("%d erasure markers left", n)
	}
	for len(events) > 0 {
		if ev := <-events; ev.Reason == engine.EventErased {
			t.Fatalf("an erased event for nothing erased: %+v", ev)
		}
	}
	res, err = e.DeleteResource(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.Purges(e); got != before+1 || !res.IndexesRebuilt || len(res.Messages) != 1 {
		t.Fatalf("DeleteResource(r): %d purges, %+v", got-before, res)
	}
}
