package observe

// SetPageTurns sets how many turns the observer reads at a time from a
// PageSource (pageTurns), until restore is called.
func SetPageTurns(n int) (restore func()) {
	old := pageTurns
	pageTurns = n
	return func() { pageTurns = old }
}
