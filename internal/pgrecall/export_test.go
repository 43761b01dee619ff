package pgrecall

import (
	"github.com/mnemo-go/mnemo/recall"
)

// CondSQLForTest is condSQL over f's tree with its parameters numbered
// from $1.
func CondSQLForTest(f *recall.Filter) (string, []any, bool) {
	b := &sqlArgs{}
	cond, exact := condSQL(b, f.Tree())
	return cond, b.args, exact
}

// SetDirectLimitForTest sets directLimit until t ends: small limits make
// filtered lexical searches count the allowed messages in their ranking
// statement (allowedMatchesSQL) instead of widening.
func SetDirectLimitForTest(t interface{ Cleanup(func()) }, n int) {
	old := directLimit
	directLimit = n
	t.Cleanup(func() { directLimit = old })
}

// SetBroadShareForTest sets broadShare until t ends (0: no filter is
// broad, every filtered search ranks the allowed messages by key).
func SetBroadShareForTest(t interface{ Cleanup(func()) }, n int) {
	old := broadShare
	broadShare = n
	t.Cleanup(func() { broadShare = old })
}

// StatusSQL is the statement of a search's vector status ($1 resource,
// $2 embedder, $3 excluded ids).
const StatusSQL = statusSQL

// UniverseRankSQL is the statement ranking the vectors of embedder $2
// of the messages $1 nearest $3, the $4 nearest first.
const UniverseRankSQL = universeRankSQL

// DirectSQL is the statement reading the messages a filter allows with
// the turns around them, but its condition.
const DirectSQL = directSQL
