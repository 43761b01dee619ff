package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestQueryNumbers: the numeric query parameters take what the CLI's
// flags take (mnemo messages --from/--to, mnemo runs --limit): fromSeq >=
// 1, toSeq 0 (the end) or >= fromSeq, limit from 1 to journal.MaxRunsLimit;
// others are a 400 naming the parameter (before: fromSeq=0 read as 1, toSeq <
// fromSeq an empty list, limit=0 the default page, limit=100000000 a page
// that large).
func TestQueryNumbers(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "one", "two", "three")
	for _, c := range []struct {
		name, path, field string // field "" means accepted
	}{
		{"FromSeqZero", "/v1/threads/t-bob/messages?fromSeq=0", "fromSeq"},
		{"ToBeforeFrom", "/v1/threads/t-bob/messages?fromSeq=3&toSeq=2", "toSeq"},
		{"ToSeqZero", "/v1/threads/t-bob/messages?fromSeq=2&toSeq=0", ""},
		{"Range", "/v1/threads/t-bob/messages?fromSeq=2&toSeq=2", ""},
		{"LimitZero", "/v1/runs?limit=0", "limit"},
		{"Limit", "/v1/runs?limit=1&offset=0", ""},
		{"LimitMax", "/v1/runs?limit=1000", ""},
		{"LimitOverMax", "/v1/runs?limit=1001", "limit"},
		{"LimitHuge", "/v1/runs?limit=100000000", "limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("GET", c.path, bobToken, nil)
			if c.field == "" {
				if r.status != 200 {
					t.Fatalf("status %d, want 200: %.300s", r.status, r.body)
				}
				return
			}
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			if p := r.problem(t); p.Field != c.field || !strings.Contains(p.Detail, c.field) {
				t.Fatalf("problem %+v, want field %s named", p, c.field)
			}
		})
	}
}
