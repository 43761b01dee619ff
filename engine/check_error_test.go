package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckErrorMore: CheckError's text lists ten findings, SQLite's and
// the indexes' together, and counts the rest of both. It counted only the
// Problems left: 100 findings of a damaged file and none of the indexes
// ended "; and -10 more" (mnemo check on a file with bytes overwritten).
// 100 findings of the database are the checks' cap (DatabaseCapped):
// "at least" the rest.
func TestCheckErrorMore(t *testing.T) {
	lines := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s %d", prefix, i)
		}
		return out
	}
	for _, c := range []struct {
		database, problems int
		more               string
	}{
		{100, 0, "; and at least 90 more"}, // SQLite's check stopped at its cap
		{99, 0, "; and 89 more"},
		{4, 8, "; and 2 more"},
		{0, 25, "; and 15 more"},
		{3, 7, ""},
	} {
		e := &engine.CheckError{Database: lines("page", c.database), Problems: lines("message", c.problems)}
		msg := e.Error()
		if got, want := e.DatabaseCapped(), c.database >= 100; got != want {
			t.Errorf("%d+%d findings: DatabaseCapped %v, want %v", c.database, c.problems, got, want)
		}
		if listed := strings.Count(msg, "page ") + strings.Count(msg, "message "); listed != min(10, c.database+c.problems) {
			t.Errorf("%d+%d findings: %d listed, want at most 10: %s", c.database, c.problems, listed, msg)
		}
		if c.more == "" && strings.Contains(msg, "more") || !strings.HasSuffix(msg, c.more) {
			t.Errorf("%d+%d findings: %q, want it to end %q", c.database, c.problems, msg, c.more)
		}
	}
}
