package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestNumericFields: a number out of its field's range is a 400 naming the
// field, as the CLI refuses the flag (--budget -1), on every route that
// takes one; the values the API documents stay accepted.
func TestNumericFields(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "I live in Porto", "noted", "and I like trains")
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-1"}, 200)
	for _, c := range []struct {
		name, path string
		body       map[string]any
		field      string // "" means accepted
	}{
		{"TokenBudgetNegative", "/v1/context", map[string]any{"threadId": "t-bob", "tokenBudget": -1}, "tokenBudget"},
		{"TokenBudgetZero", "/v1/context", map[string]any{"threadId": "t-bob", "tokenBudget": 0}, ""},
		{"TokenBudget", "/v1/context", map[string]any{"threadId": "t-bob", "tokenBudget": 100}, ""},
		{"RecentNNegative", "/v1/context", map[string]any{"threadId": "t-bob", "recentN": -1}, ""}, // documented: turns the window off
		{"ReplaySeqZero", "/v1/runs/run-1/replay", map[string]any{"withoutTurns": []map[string]any{{"threadId": "t-bob", "seq": 0}}}, "withoutTurns[0].seq"},
		{"ReplaySeqNegative", "/v1/runs/run-1/replay", map[string]any{"withoutTurns": []map[string]any{{"threadId": "t-bob", "seq": 1}, {"threadId": "t-bob", "seq": -3}}}, "withoutTurns[1].seq"},
		{"ReplaySeq", "/v1/runs/run-1/replay", map[string]any{"withoutTurns": []map[string]any{{"threadId": "t-bob", "seq": 2}}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			pattern := c.path
			if strings.HasPrefix(pattern, "/v1/runs/") {
				pattern = "/v1/runs/{run}/replay"
			}
			r := h.do("POST", c.path, bobToken, c.body)
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
				t.Fatalf("problem %+v, want field %s named in the detail", p, c.field)
			}
			h.validate("POST", pattern, r)
		})
	}
}
