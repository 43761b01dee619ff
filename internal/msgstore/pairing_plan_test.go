package msgstore_test

import (
	"strings"
	"testing"
)

// TestAnsweredPlanSeeks: the statement finding the call a tool result
// answers (ToolCall; OpenCall with its lower bound) seeks message_calls,
// the index of calls made, and reads no assistant message's tool_calls:
// before it, a result answering no call read every assistant message of
// the thread (json_each on SQLite, jsonb containment on Postgres), at
// every LoadContext holding it (BenchmarkLoadContextOrphan). On SQLite the
// plan scans nothing.
func TestAnsweredPlanSeeks(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, db, _ := b.openStore(t)
		for _, since := range []bool{false, true} {
			args := []any{"t", "call_1", int64(50)}
			if since {
				args = append(args, int64(10))
			}
			plan := b.Plan(t, db, b.Dialect.Rebind(s.AnsweredSQL(since)), args...)
			if !strings.Contains(plan, "message_calls") && !strings.Contains(plan, "SEARCH c USING PRIMARY KEY") ||
				strings.Contains(plan, "tool_calls") || strings.Contains(plan, "json_each") || strings.Contains(plan, "SCAN") {
				t.Errorf("since %v: the plan reads more than two index seeks: %s", since, plan)
			}
		}
	})
}
