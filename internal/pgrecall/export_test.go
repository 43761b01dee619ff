package pgrecall

import "github.com/mnemo-go/mnemo/recall"

// CondSQLForTest is condSQL over f's tree with its parameters numbered
// from $1.
func CondSQLForTest(f *recall.Filter) (string, []any, bool) {
	b := &sqlArgs{}
	cond, exact := condSQL(b, f.Tree())
	return cond, b.args, exact
}

// SetDirectLimitForTest sets directLimit until t ends: small limits make
// filtered searches widen instead of reading the allowed messages first.
func SetDirectLimitForTest(t interface{ Cleanup(func()) }, n int) {
	old := directLimit
	directLimit = n
	t.Cleanup(func() { directLimit = old })
}

// StatusSQL is the statement of a search's vector status ($1 resource,
// $2 embedder, $3 excluded ids).
const StatusSQL = statusSQL
