package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestAppendDefaultResource: POST /v1/threads/{thread}/messages without
// resourceId appends to the resource memory_append would
// (server.Tenant.DefaultResource): the stored thread's, else the token's
// only resource. When neither decides (an operator on a new thread) it is
// a 400 naming resourceId; another tenant's thread answers 404 and is left
// as it was. Before, the API refused every append without resourceId.
func TestAppendDefaultResource(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "bob's first turn")
	msgs := []map[string]any{{"role": "user", "content": "one more turn"}}
	cases := []struct {
		name, token, thread string
		status              int
		field               string // of the problem
		resource            string // of the answer
	}{
		{"NewThreadOnlyResource", aliceToken, "t-alice-new", 200, "", "res-alice"},
		{"StoredThread", bobToken, "t-bob", 200, "", "res-bob"},
		{"StoredThreadOperator", opsToken, "t-bob", 200, "", "res-bob"},
		{"ErrAmbiguous", opsToken, "t-ops-new", 400, "resourceId", ""},
		{"ErrForeignThread", aliceToken, "t-bob", 404, "", ""},
		{"ErrInvalidThread", aliceToken, "bad!", 400, "thread", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", "/v1/threads/"+c.thread+"/messages", c.token, map[string]any{"messages": msgs})
			if got, want := r.status, c.status; got != want {
				t.Fatalf("status %d, want %d: %.300s", got, want, r.body)
			}
			h.validate("POST", "/v1/threads/{thread}/messages", r)
			if c.status != 200 {
				if p := r.problem(t); p.Field != c.field {
					t.Fatalf("problem %+v, want field %q", p, c.field)
				}
				return
			}
			var res server.AppendResult
			r.decode(t, &res)
			if got, want := res.ResourceID, c.resource; got != want {
				t.Fatalf("appended to %s, want %s", got, want)
			}
		})
	}
	var ml server.MessageList
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/t-bob/messages", bobToken, nil, 200).decode(t, &ml)
	if got, want := len(ml.Messages), 3; got != want { // the seed, bob's append and the operator's
		t.Fatalf("bob's thread holds %d messages, want %d", got, want)
	}
}
