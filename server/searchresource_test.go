package server_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestSearchDefaultResource: POST /v1/search without resourceId searches
// the resource the MCP tool memory_search would (server.Tenant
// .DefaultResource): the thread's when threadId names a stored thread of
// the token's, else the token's only resource. When neither decides (an
// operator naming no stored thread) it is a 400 naming resourceId, and a
// thread of another tenant answers as one that exists nowhere. Before, the
// API refused every body without resourceId.
func TestSearchDefaultResource(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "the orchard needs pruning", "before the frost")
	h.seed("t-alice", "res-alice", aliceToken, "the orchard of my aunt", "apples")
	cases := []struct {
		name, token string
		body        map[string]any
		status      int
		field       string // of the problem
		thread      string // of every hit
	}{
		{"OnlyResource", bobToken, map[string]any{"query": "orchard"}, 200, "", "t-bob"},
		{"ThreadsResource", opsToken, map[string]any{"threadId": "t-alice", "query": "orchard"}, 200, "", "t-alice"},
		{"OnlyResourceWithThread", aliceToken, map[string]any{"threadId": "t-alice", "query": "orchard"}, 200, "", "t-alice"},
		{"ErrAmbiguous", opsToken, map[string]any{"query": "orchard"}, 400, "resourceId", ""},
		{"ErrAmbiguousUnknownThread", opsToken, map[string]any{"threadId": "t-nowhere", "query": "orchard"}, 400, "resourceId", ""},
		{"ErrForeignThread", aliceToken, map[string]any{"threadId": "t-bob", "query": "orchard"}, 404, "", ""},
		{"ErrUnknownThread", aliceToken, map[string]any{"threadId": "t-nowhere", "query": "orchard"}, 404, "", ""},
		{"ErrInvalidThread", aliceToken, map[string]any{"threadId": "bad id", "query": "orchard"}, 400, "threadId", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", "/v1/search", c.token, c.body)
			if got, want := r.status, c.status; got != want {
				t.Fatalf("status %d, want %d: %.300s", got, want, r.body)
			}
			h.validate("POST", "/v1/search", r)
			if c.status != 200 {
				if p := r.problem(t); p.Field != c.field {
					t.Fatalf("problem %+v, want field %q", p, c.field)
				}
				return
			}
			var res struct {
				Hits []struct{ Message struct{ ThreadID string } }
			}
			r.decode(t, &res)
			if len(res.Hits) == 0 {
				t.Fatal("no hit")
			}
			for _, hit := range res.Hits {
				if hit.Message.ThreadID != c.thread {
					t.Fatalf("hit of %s, want only %s", hit.Message.ThreadID, c.thread)
				}
			}
		})
	}
}
