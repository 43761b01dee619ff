package journal

import (
	"testing"
	"time"
)

// JournalWithClock returns a journal on j's database whose clock reads *now.
func JournalWithClock(t *testing.T, j *Journal, now *time.Time) *Journal {
	return New(j.db, func() time.Time { return *now })
}

// RunsQuery exposes ListRuns' statement to the tests, which read its plan.
func (j *Journal) RunsQuery(f RunFilter) (string, []any) { return j.runsQuery(f) }
