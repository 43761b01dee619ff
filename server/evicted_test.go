package server_test

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestAppendNamesEvictions: the append answer names the threads the
// store's quota evicted after it (engine.AppendResult.Evicted), but only
// those of the token's resources: bob's thread evicted by alice's append
// is not in her answer (nor counted), her own evicted thread is, and the
// operator's answer names any tenant's. /metrics counts every eviction
// (Server.CountEvent, fed the engine's events as mnemo serve does). Before,
// the answer had no evicted member and nothing counted an eviction.
func TestAppendNamesEvictions(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		var tick atomic.Int64 // one second a call: each append later than the last
		now := func() time.Time { return time.Unix(1_700_000_000+tick.Add(1), 0) }
		events := make(chan engine.Event, 64)
		h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{Now: now, Events: events,
			Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: 2}}}))
		appendOne := func(thread, resource, token string) map[string]json.RawMessage {
			t.Helper()
			r := h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/"+thread+"/messages", token,
				map[string]any{"resourceId": resource, "messages": []map[string]any{{"role": "user", "content": "hello"}}}, 200)
			var m map[string]json.RawMessage
			r.decode(t, &m)
			return m
		}
		appendOne("bob-secret-thread", "res-bob", bobToken)
		appendOne("a1", "res-alice", aliceToken)
		if m := appendOne("a2", "res-alice", aliceToken); m["evicted"] != nil { // evicts bob's thread
			t.Fatalf("alice's answer names bob's eviction: evicted %s", m["evicted"])
		}
		if m := appendOne("a3", "res-alice", aliceToken); string(m["evicted"]) != `["a1"]` { // evicts her own a1
			t.Fatalf("alice's answer: evicted %s, want [\"a1\"]", m["evicted"])
		}
		if m := appendOne("b2", "res-bob", opsToken); string(m["evicted"]) != `["a2"]` {
			t.Fatalf("the operator's answer: evicted %s, want [\"a2\"]", m["evicted"])
		}
		for len(events) > 0 {
			h.srv.CountEvent(<-events)
		}
		body := string(h.do("GET", "/metrics", opsToken, nil).body)
		for _, want := range []string{`mnemo_engine_events_total{reason="evicted-store-quota"} 3`, `mnemo_erased_messages_total{reason="evicted-store-quota"} 3`} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
	})
}
