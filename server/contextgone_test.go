package server_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestContextThreadErasedMeanwhile: a POST /v1/context whose thread the
// server found but the engine then erased (here its idle lifetime ran out:
// LoadContext erases an expired thread first, as a DELETE racing it would
// have) answers 404 thread not found, as engine.ErrThreadNotFound is
// everywhere else, and records no run. It was a 500 with
// "engine: thread not found: …" in the log.
func TestContextThreadErasedMeanwhile(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		var clock atomic.Int64
		now := func() time.Time { return time.Unix(1_700_000_000+clock.Load(), 0) }
		h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{Now: now,
			Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}}))
		h.seed("old", "res-alice", aliceToken, "a turn about gardens")
		clock.Store(int64(2 * time.Hour / time.Second))
		r := h.do("POST", "/v1/context", aliceToken, map[string]any{"threadId": "old", "runId": "gone-run"})
		if r.status != 404 {
			t.Fatalf("context of a thread erased meanwhile: %d %s, want 404", r.status, r.body)
		}
		if p := r.problem(t); p.Detail != `thread not found: "old"` {
			t.Errorf("detail %q, want thread not found: \"old\"", p.Detail)
		}
		if r := h.do("GET", "/v1/runs/gone-run/memctx", aliceToken, nil); r.status != 404 {
			t.Errorf("the refused context recorded its run: %d %s", r.status, r.body)
		}
	})
}
