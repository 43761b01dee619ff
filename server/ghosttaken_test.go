package server_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestRunOnThreadAnotherTenantTakes: alice's context on a thread id with
// no stored thread records her run (and her query); bob may then append
// to the id (thread ids are global names, and this one was free), taking
// it. Before (walk56 F1) the run was stranded: the operator's GET
// /v1/runs?threadId= did not list it, alice's DELETE of the id was a 404
// and left it, the erasure of bob's thread rewrote its thread id to a
// tombstone (its query kept), and then no expiry ever reached it. Now the
// run stays alice's under the id whatever becomes of bob's thread: listed
// for the operator, erased by alice's DELETE of the id (bob's thread
// stays), kept as it is by the erasure of bob's thread, and expired by
// the rule of runs with no stored thread of their resource, while bob's
// thread lives and after.
func TestRunOnThreadAnotherTenantTakes(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		var mu sync.Mutex
		now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
		h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{Now: clock}))
		ctx := context.Background()
		take := func(thread, run, query string) {
			t.Helper()
			h.ok("POST", "/v1/context", "/v1/context", aliceToken,
				map[string]any{"threadId": thread, "runId": run, "query": query}, 200)
			h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/"+thread+"/messages", bobToken,
				map[string]any{"messages": []map[string]any{{"role": "user", "content": "hi, bob here"}}}, 200)
		}
		runsOf := func(token, thread string) []string {
			t.Helper()
			var l struct {
				Runs []struct {
					RunID string `json:"runId"`
				} `json:"runs"`
			}
			h.ok("GET", "/v1/runs", "/v1/runs?threadId="+thread, token, nil, 200).decode(t, &l)
			var ids []string
			for _, r := range l.Runs {
				ids = append(ids, r.RunID)
			}
			return ids
		}
		var rec struct {
			ThreadID string `json:"threadId"`
			Query    string `json:"query"`
		}
		memctx := func(run string) int {
			t.Helper()
			r := h.do("GET", "/v1/runs/"+run+"/memctx", aliceToken, nil)
			if r.status == 200 {
				r.decode(t, &rec)
			}
			return r.status
		}

		// a) the operator's listing by thread shows alice's run.
		take("chat-42", "run-a1", "my HIV test result is positive")
		if got := runsOf(opsToken, "chat-42"); !slices.Contains(got, "run-a1") {
			t.Errorf("operator's runs of chat-42: %v, want run-a1 listed", got)
		}
		if got := runsOf(aliceToken, "chat-42"); !slices.Equal(got, []string{"run-a1"}) {
			t.Errorf("alice's runs of chat-42: %v, want [run-a1]", got)
		}

		// b) alice's DELETE of the id erases her run, not bob's thread.
		var res struct {
			Runs     int      `json:"runs"`
			Threads  []string `json:"threads"`
			Messages []string `json:"messages"`
		}
		h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/chat-42", aliceToken, nil, 200).decode(t, &res)
		if res.Runs != 1 || len(res.Messages) != 0 {
			t.Errorf("alice's DELETE of chat-42: %+v, want runs 1 and no message", res)
		}
		if s := memctx("run-a1"); s != 404 {
			t.Errorf("run-a1 after alice's DELETE: %d %+v, want 404", s, rec)
		}
		var msgs struct {
			Messages []any `json:"messages"`
		}
		h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/chat-42/messages", bobToken, nil, 200).decode(t, &msgs)
		if len(msgs.Messages) != 1 {
			t.Errorf("bob's chat-42 after alice's DELETE: %d messages, want 1", len(msgs.Messages))
		}

		// c) the erasure of bob's thread leaves alice's run as it is, and
		// expiry reaches it after.
		take("chat-43", "run-a2", "my passport number is ZX9912345")
		h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/chat-43", opsToken, nil, 200)
		if s := memctx("run-a2"); s != 200 || rec.ThreadID != "chat-43" || rec.Query != "my passport number is ZX9912345" {
			t.Errorf("run-a2 after bob's thread was erased: %d, thread %q, query %q; want it kept as it was", s, rec.ThreadID, rec.Query)
		}
		if got := runsOf(aliceToken, "chat-43"); !slices.Equal(got, []string{"run-a2"}) {
			t.Errorf("alice's runs of chat-43 after bob's thread was erased: %v, want [run-a2]", got)
		}

		// d) while bob's thread lives, alice's run expires by its own rule.
		take("chat-44", "run-a3", "my bank PIN is 4471")
		advance(2 * time.Hour)
		h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/chat-44/messages", bobToken,
			map[string]any{"messages": []map[string]any{{"role": "user", "content": "still here"}}}, 200)
		exp, err := h.e.Expire(ctx, engine.ExpireRequest{Idle: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		var expired []string
		for _, x := range exp.Threads {
			expired = append(expired, x.ThreadID+"/"+x.ResourceID)
		}
		slices.Sort(expired)
		if want := []string{"chat-42/res-bob", "chat-43/res-alice", "chat-44/res-alice"}; !slices.Equal(expired, want) {
			t.Errorf("expired %v, want %v", expired, want)
		}
		for _, run := range []string{"run-a2", "run-a3"} {
			if s := memctx(run); s != 404 {
				t.Errorf("%s after the expiry: %d %+v, want 404", run, s, rec)
			}
		}
		h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/chat-44/messages", bobToken, nil, 200).decode(t, &msgs)
		if len(msgs.Messages) != 2 {
			t.Errorf("bob's chat-44 after the expiry: %d messages, want 2", len(msgs.Messages))
		}
	})
}
