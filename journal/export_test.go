package journal

import (
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// JournalWithClock returns a journal on j's database whose clock reads *now.
func JournalWithClock(t *testing.T, j *Journal, now *time.Time) *Journal {
	return New(j.db, func() time.Time { return *now })
}

// RunsQuery exposes ListRuns' statement to the tests, which read its plan.
func (j *Journal) RunsQuery(f RunFilter) (string, []any) { return j.runsQuery(f) }

// ErasurePlans are statements of the erasure and expiry paths whose plans
// the tests read, with their arguments: EntombThread's and
// EntombResource's of the journal rows, NamedThreads' and GhostRuns' with
// neither a thread nor a resource.
var ErasurePlans = []struct {
	Name  string
	Query string
	Args  []any
}{
	{"EntombThread", entombThreadJournal, []any{"t1", "erased-t1", "r1", "erased-r1", ""}},
	{"EntombResource", entombResourceJournal, []any{"r1", "erased-r1"}},
	{"NamedThreads", namedThreads, []any{"r1", ScopeMemCtx}},
	{"GhostRuns", ghostThreadsWalk, []any{ScopeMemCtx, "", ""}},
}

// AgedQuery exposes PruneAged's selection to the tests, which read its plan.
func (j *Journal) AgedQuery(what string, cutoff int64, resourceID string) (string, []any) {
	return j.agedQuery(what, cutoff, resourceID)
}

// ForgetRunToolsSQL is ForgetRunTools' statement in dialect d, with the
// arguments it runs with for runID, for the tests that read its plan.
func ForgetRunToolsSQL(d store.Dialect, runID string) (string, []any) {
	lo, hi := toolKeyRange(runID)
	return d.Text(forgetRunToolsSQLite, forgetRunToolsPostgres), []any{lo, hi}
}

// DispatchLookups are the statements that look up the tool messages
// answering a dispatch's call id, with arguments for a pending dispatch of
// call-1 by run "run" in thread "t" (the tests read their plans).
var DispatchLookups = []struct {
	Name  string
	Query string
	Args  []any
}{
	{"RunDispatches", answeredAfterSQL, []any{"t", "call-1", 1}},
	{"PendingDispatches", pendingDispatchesSQL, []any{"t", 1 << 40}},
	{"AnsweredBy", answeredBySQL, []any{"t", "call-1", "t", "call-1", 1 << 40, 1 << 40}},
	{"DispatchAnswer", dispatchAnswerSQL, []any{"run", "call-1"}},
}

// MemoRangeSQL are the statements of MemoKeys, Memos and ForgetMemos in
// dialect d, with the arguments they run with for the range [lo, hi) (and
// lo itself as MemoKeys' key, ForgetMemos keeping nothing), for the tests
// that read their plans.
func MemoRangeSQL(d store.Dialect, lo, hi string) []struct {
	Name  string
	Query string
	Args  []any
} {
	forget, args := forgetMemosSQL(d, lo, hi, nil)
	return []struct {
		Name  string
		Query string
		Args  []any
	}{
		{"MemoKeys", d.Text(memoKeysSQLite, memoKeysPostgres), []any{lo, lo, hi}},
		{"Memos", d.Text(memosSQLite, memosPostgres), []any{lo, hi}},
		{"ForgetMemos", forget, args},
	}
}
