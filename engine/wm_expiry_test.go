package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestExpiryTakesResourceWorkingMemory pins what docs/operations.md and
// docs/working-memory.md say of a resource-scoped working memory under an
// idle lifetime (walk35: the resource's profile became "" when the chat
// that wrote it expired). Expiry is an erasure: a version written by a
// run of the expired thread goes with it (DESIGN.md, "Erasure": every
// derived artefact the erased turns fed). The ways out keep it: the
// version written by a run of a thread that never expires, set without a
// run (an operator's or the application's own write), or written by a
// run whose record retention.maxAge pruned before the thread expired
// (Expire prunes first).
func TestExpiryTakesResourceWorkingMemory(t *testing.T) {
	const fact = "# Notes\n- allergic to cats\n"
	for _, c := range []struct {
		name      string
		writer    string // the thread whose run writes the version ("" : no run, a plain Set)
		retention journal.Retention
		want      string
	}{
		{"a chat's run", "chat1", journal.Retention{}, "# Notes\n"},
		{"a kept thread's run", "keep", journal.Retention{}, fact},
		{"no run", "", journal.Retention{}, fact},
		{"a run retention pruned", "chat1", journal.Retention{MaxAge: 30 * time.Minute}, fact},
	} {
		t.Run(c.name, func(t *testing.T) {
			enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
				ctx := context.Background()
				clock := newFakeClock()
				e := be.MustOpen(t, engine.Config{Now: clock.Now, Retention: c.retention, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour},
					WorkingMemory: &working.Config{Mode: working.ModeTemplate, Scope: working.ScopeResource, Template: "# Notes\n"}})
				say(t, e, "ana", "chat1", "I am allergic to cats")
				say(t, e, "ana", "keep", "hello")
				if err := e.SetIdleTTL(ctx, "keep", "ana", -1); err != nil {
					t.Fatal(err)
				}
				mem, err := e.WorkingMemory()
				if err != nil {
					t.Fatal(err)
				}
				if c.writer == "" {
					if _, err := mem.Set(ctx, working.ResourceKey("ana"), fact, working.Origin{}); err != nil {
						t.Fatal(err)
					}
				} else {
					if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: c.writer, ResourceID: "ana"}); err != nil {
						t.Fatal(err)
					}
					call := openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"memory":"# Notes\n- allergic to cats\n"}`)
					if _, err := e.HandleToolCall(ctx, "run-1", c.writer, "ana", call); err != nil {
						t.Fatal(err)
					}
				}
				clock.Add(3 * time.Hour)
				res, err := e.Expire(ctx, engine.ExpireRequest{})
				if err != nil || len(res.Threads) != 1 || res.Threads[0].ThreadID != "chat1" {
					t.Fatalf("expire: %+v, %v; want chat1 expired", res, err)
				}
				st, err := mem.Get(ctx, working.ResourceKey("ana"))
				if err != nil {
					t.Fatal(err)
				}
				if st.Content != c.want {
					t.Fatalf("the resource's working memory after chat1 expired: %q, want %q", st.Content, c.want)
				}
			})
		})
	}
}
