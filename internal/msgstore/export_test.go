package msgstore

// ThreadsInOrderQuery exposes ThreadsInOrder's statement to the black-box
// tests, which count the rows it reads.
func (s *Store) ThreadsInOrderQuery(resourceID string, ids []string) (string, []any, error) {
	return s.threadsInOrderQuery(resourceID, ids)
}

// ThreadsAfterQueries exposes the statements ThreadsAfter runs (each
// without its LIMIT) to the black-box tests, which read their plans.
func (s *Store) ThreadsAfterQueries(resources []string, after *ThreadKey) (sqls []string, args [][]any) {
	for _, q := range s.threadsAfterQueries(resources, after) {
		sqls, args = append(sqls, q.sql), append(args, q.args)
	}
	return sqls, args
}

// PendingSQL is Pending's statement, which only the SQLite engine runs.
const PendingSQL = pendingSQL

// PendingIndexQueries are the statements of PendingIndex and Pending
// with their arguments (PendingIndex's resource id and OpIndex, Pending's resource id twice),
// for the tests that read their plans.
var PendingIndexQueries = map[string][]any{
	pendingIndexSQL: {"r", OpIndex},
	pendingSQL:      {"r", "r"},
}

// AnsweredSQL exposes ToolCall's and OpenCall's statement (since: with the
// lower bound $4) to the black-box tests, which read its plan.
func (s *Store) AnsweredSQL(since bool) string { return s.answeredSQL("seq", since) }

// ResultSQL exposes FirstResult's (first) or LastResult's statement to the
// black-box tests, which read its plan.
func (s *Store) ResultSQL(first bool) string {
	if first {
		return s.firstResultSQL("id, seq")
	}
	return s.lastResultSQL()
}
