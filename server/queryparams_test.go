package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestUnknownQueryParam: a query parameter a /v1 route does not take
// (GET …/messages?from=3, whose parameters are fromSeq and toSeq) is a 400
// naming it and the ones the route takes, instead of being ignored; one
// given twice is refused too; the documented ones still work.
func TestUnknownQueryParam(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	for _, c := range []struct {
		name, method, path, pattern string
		body                        any
		field, says                 string // "" means accepted
	}{
		{"MessagesFrom", "GET", "/v1/threads/t-bob/messages?from=2", "/v1/threads/{thread}/messages", nil, "from", "fromSeq, toSeq"},
		{"MessagesFromSeq", "GET", "/v1/threads/t-bob/messages?fromSeq=2&toSeq=3", "/v1/threads/{thread}/messages", nil, "", ""},
		{"MessagesTwice", "GET", "/v1/threads/t-bob/messages?fromSeq=2&fromSeq=3", "/v1/threads/{thread}/messages", nil, "fromSeq", "once"},
		{"ThreadsResource", "GET", "/v1/threads?resource=res-bob", "/v1/threads", nil, "resource", "resourceId"},
		{"ThreadsResourceID", "GET", "/v1/threads?resourceId=res-bob", "/v1/threads", nil, "", ""},
		{"ThreadNone", "GET", "/v1/threads/t-bob?verbose=1", "/v1/threads/{thread}", nil, "verbose", "no query parameter"},
		{"RunsThread", "GET", "/v1/runs?thread=t-bob", "/v1/runs", nil, "thread", "threadId"},
		{"SearchQuery", "POST", "/v1/search?topK=3", "/v1/search", map[string]any{"resourceId": "res-bob", "query": "one"}, "topK", "no query parameter"},
		{"ObservationsAll", "GET", "/v1/threads/t-bob/observations?all=true", "/v1/threads/{thread}/observations", nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, bobToken, c.body)
			if c.field == "" {
				if r.status != 200 {
					t.Fatalf("status %d, want 200: %.300s", r.status, r.body)
				}
				return
			}
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != c.field || !strings.Contains(p.Detail, c.says) {
				t.Fatalf("problem %+v, want field %q and %q in the detail", p, c.field, c.says)
			}
			h.validate(c.method, c.pattern, r)
		})
	}
}

// TestEmptyQueryParam: a documented query parameter given with no value
// (GET /v1/runs?resourceId=) is a 400 naming it; before, it read as left
// out, so an empty resourceId listed the runs of every resource of the
// token, an empty limit the default page.
func TestEmptyQueryParam(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	for _, c := range []struct{ path, pattern, field string }{
		{"/v1/threads?resourceId=", "/v1/threads", "resourceId"},
		{"/v1/runs?resourceId=", "/v1/runs", "resourceId"},
		{"/v1/runs?threadId=", "/v1/runs", "threadId"},
		{"/v1/runs?threadId=t-bob&resourceId=", "/v1/runs", "resourceId"},
		{"/v1/runs?limit=", "/v1/runs", "limit"},
		{"/v1/threads/t-bob/messages?fromSeq=", "/v1/threads/{thread}/messages", "fromSeq"},
		{"/v1/threads/t-bob/observations?all=", "/v1/threads/{thread}/observations", "all"},
	} {
		t.Run(c.path, func(t *testing.T) {
			r := h.do("GET", c.path, bobToken, nil)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			p := r.problem(t)
			if p.Field != c.field || !strings.Contains(p.Detail, c.field) || !strings.Contains(p.Detail, "empty") {
				t.Fatalf("problem %+v, want field %q named and said empty", p, c.field)
			}
			h.validate("GET", c.pattern, r)
		})
	}
}

// TestMalformedQuery: a query string that does not parse (a ";" separator,
// a bad %-escape) is a 400 saying so; before, the pair that did not parse
// was dropped, so GET /v1/runs?resourceId=res-bob; listed the runs of every
// resource of the token, as if no resourceId were given.
func TestMalformedQuery(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	for _, c := range []struct{ path, pattern string }{
		{"/v1/runs?resourceId=res-bob;", "/v1/runs"},
		{"/v1/runs?resourceId=res-bob;limit=1", "/v1/runs"},
		{"/v1/runs?resourceId=%zz", "/v1/runs"},
		{"/v1/threads?resourceId=res-bob%", "/v1/threads"},
		{"/v1/threads/t-bob/messages?fromSeq=2;toSeq=2", "/v1/threads/{thread}/messages"},
	} {
		t.Run(c.path, func(t *testing.T) {
			r := h.do("GET", c.path, bobToken, nil)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			if p := r.problem(t); !strings.Contains(p.Detail, "malformed query") {
				t.Fatalf("problem %+v, want the detail to say the query is malformed", p)
			}
			h.validate("GET", c.pattern, r)
		})
	}
}
