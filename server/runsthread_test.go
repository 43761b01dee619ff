package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// runsTokens adds to the test tokens one of two resources (multi) and one
// of res-a1 alone (one).
const runsTokens = `{"tokens": [
	{"name": "one", "token": "one-secret-11", "resources": ["res-a1"]},
	{"name": "multi", "token": "multi-secret-2", "resources": ["res-a1", "res-a2"]},
	{"name": "bob", "token": "bob-secret-22", "resources": ["res-b"]},
	{"name": "ops", "token": "ops-secret-333", "resources": ["*"]}
]}`

// TestListRunsResource pins which runs GET /v1/runs lists: the resource
// is the one given, else the stored thread's (of the caller's), else the
// token's only resource (server.Tenant.DefaultResource), and a token of
// several resources naming neither is refused. A thread id that is not
// the caller's stored thread (never created, or created by another
// tenant after the caller's run on the id) lists the caller's runs on
// that id: such runs show in the listing without a filter, and the id
// answered 404. Never another tenant's runs: bob's thread t-shared lists
// for "one" its own run on the id, for bob his. An id that is neither the
// caller's thread nor holds a run of theirs is still not found (bob's
// thread as one that exists nowhere: TestIsolation). The operator's
// listing of an id shows every resource's runs on it.
func TestListRunsResource(t *testing.T) {
	tok, err := server.ParseTokens([]byte(runsTokens))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, false, server.Config{Tokens: tok})
	const one, multi, bob, ops = "one-secret-11", "multi-secret-2", "bob-secret-22", "ops-secret-333"
	h.seed("t-a1", "res-a1", one, "alice likes tea")
	h.seed("t-a2", "res-a2", multi, "alice's other life")
	h.seed("t-b", "res-b", bob, "bob secret plans")
	load := func(token, thread, resource, run string) {
		t.Helper()
		body := map[string]any{"threadId": thread, "runId": run}
		if resource != "" {
			body["resourceId"] = resource
		}
		h.ok("POST", "/v1/context", "/v1/context", token, body, 200)
	}
	load(one, "t-a1", "", "run-a1")
	load(multi, "t-a2", "", "run-a2")
	load(bob, "t-b", "", "run-b")
	load(one, "t-ghost", "", "run-ghost") // never created
	load(one, "t-shared", "", "run-shared")
	h.seed("t-shared", "res-b", bob, "bob takes the id") // created by bob after one's run
	load(bob, "t-shared", "", "run-bshared")

	cases := []struct {
		name, token, query string
		status             int
		runs               string // run ids, newest first
	}{
		{"OnlyResource", one, "", 200, "run-shared run-ghost run-a1"},
		{"SeveralNoFilter", multi, "", 400, ""},
		{"Operator", ops, "", 200, "run-bshared run-shared run-ghost run-b run-a2 run-a1"},
		{"OwnThread", one, "threadId=t-a1", 200, "run-a1"},
		{"OwnThreadOfSeveral", multi, "threadId=t-a2", 200, "run-a2"},
		{"OwnThreadOtherResource", multi, "threadId=t-a2&resourceId=res-a1", 200, ""},
		{"ForeignResource", one, "resourceId=res-b", 404, ""},
		{"GhostThread", one, "threadId=t-ghost", 200, "run-ghost"},
		{"GhostThreadOther", bob, "threadId=t-ghost", 404, ""},
		{"GhostThreadOfSeveral", multi, "threadId=t-ghost", 400, ""},
		{"GhostThreadResource", multi, "threadId=t-ghost&resourceId=res-a1", 200, "run-ghost"},
		{"GhostThreadOperator", ops, "threadId=t-ghost", 200, "run-ghost"},
		{"TakenThread", one, "threadId=t-shared", 200, "run-shared"},
		{"TakenThreadOwner", bob, "threadId=t-shared", 200, "run-bshared"},
		{"TakenThreadOperator", ops, "threadId=t-shared", 200, "run-bshared run-shared"}, // every resource's (walk56 F1: it hid one's)
		{"ForeignThread", one, "threadId=t-b", 404, ""},
		{"NowhereThread", one, "threadId=t-nowhere", 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("GET", "/v1/runs?"+c.query, c.token, nil)
			if r.status != c.status {
				t.Fatalf("GET /v1/runs?%s: %d %s, want %d", c.query, r.status, r.body, c.status)
			}
			if r.status != 200 {
				if p := r.problem(t); (r.status == 400 && p.Field != "resourceId") || (r.status == 404 && !strings.Contains(p.Detail, "not found")) {
					t.Fatalf("GET /v1/runs?%s: %+v, want field resourceId (400) or not found (404)", c.query, p)
				}
				return
			}
			h.validate("GET", "/v1/runs", r)
			var l server.RunList
			r.decode(t, &l)
			var got []string
			for _, ri := range l.Runs {
				got = append(got, ri.RunID)
			}
			if got, want := strings.Join(got, " "), c.runs; got != want {
				t.Fatalf("GET /v1/runs?%s: runs %q, want %q", c.query, got, want)
			}
		})
	}
}
