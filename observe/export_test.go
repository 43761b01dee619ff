package observe

import (
	"context"

	"github.com/mnemo-go/mnemo/internal/store"
)

// SetPageTurns sets how many turns the observer reads at a time from a
// PageSource (pageTurns), until restore is called.
func SetPageTurns(n int) (restore func()) {
	old := pageTurns
	pageTurns = n
	return func() { pageTurns = old }
}

// LockThread is lockThread (observe_range.go): the lock the transactions
// that write threadID's observations take in tx.
func LockThread(ctx context.Context, tx store.Conn, threadID string) error {
	return lockThread(ctx, tx, threadID)
}

// ReflectGrowth is reflectGrowth (reflect_due.go): the tokens of new
// observations that make a reflection due again after one that did not
// condense.
func ReflectGrowth(threshold int) int { return reflectGrowth(threshold) }

// SkipsTried is how many threads o keeps in skipsTried (retrySkips).
func SkipsTried(o *Observer) int {
	n := 0
	o.skipsTried.Range(func(any, any) bool { n++; return true })
	return n
}
