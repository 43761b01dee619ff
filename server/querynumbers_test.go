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
		// Written with a sign or leading zeros: accepted as 5 (every
		// other number mnemo reads refuses them).
		{"LimitPlus", "/v1/runs?limit=%2B5", "limit"},
		{"LimitLeadingZero", "/v1/runs?limit=05", "limit"},
		{"ThreadsLimitPlus", "/v1/threads?limit=%2B5", "limit"},
		{"MessagesLimitLeadingZero", "/v1/threads/t-bob/messages?limit=05", "limit"},
		{"FromSeqLeadingZero", "/v1/threads/t-bob/messages?fromSeq=01", "fromSeq"},
		{"OffsetMinusZero", "/v1/runs?offset=-0", "offset"},
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

// TestQueryNumberSpelling: a number query parameter written with a sign or
// leading zeros is told how to write it, as a JSON body's 1e3 is (before:
// ?limit=+5 and ?limit=05 were read as 5).
func TestQueryNumberSpelling(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	for path, want := range map[string]string{
		"/v1/runs?limit=%2B5":   "limit must be a whole number written without a sign: 5, not +5",
		"/v1/runs?limit=005":    "limit must be a whole number written without leading zeros: 5, not 005",
		"/v1/runs?offset=-0":    "offset must be a whole number written without a sign: 0, not -0",
		"/v1/runs?offset=%2B07": "offset must be a whole number written without a sign: 7, not +07",
	} {
		r := h.do("GET", path, bobToken, nil)
		if r.status != 400 {
			t.Fatalf("%s: status %d, want 400: %.300s", path, r.status, r.body)
		}
		if p := r.problem(t); p.Detail != want {
			t.Errorf("%s: detail %q, want %q", path, p.Detail, want)
		}
	}
}
