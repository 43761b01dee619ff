package pgrecall

import (
	"github.com/pgvector/pgvector-go"

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
// filtered searches rank the filter's rows in SQL instead of reading the
// allowed messages' ids first.
func SetDirectLimitForTest(t interface{ Cleanup(func()) }, n int) {
	old := directLimit
	directLimit = n
	t.Cleanup(func() { directLimit = old })
}

// StatusSQL is the statement of a search's vector status ($1 resource,
// $2 embedder, $3 excluded ids).
const StatusSQL = statusSQL

// AllowedRankSQLForTest is the statement ranking the vectors of embedder
// among the messages of resource that f allows and the turns around them
// (allowedRankSQL), with its parameters.
func AllowedRankSQLForTest(f *recall.Filter, resource, embedder string, qv []float32, n int) (string, []any) {
	b := &sqlArgs{args: []any{resource, "", []string{}}}
	cond, _ := condSQL(b, f.Tree())
	return allowedRankSQL(b, cond, embedder, pgvector.NewVector(qv), n), b.args
}
