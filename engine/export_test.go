package engine

// FileHolds exposes fileHolds to the black-box tests.
var FileHolds = fileHolds

// StartBackgroundObserver starts the background observer as the first
// Append after Open does (for TestCloseRacesBackgroundObserver), and
// reports whether its goroutine runs.
func (e *Engine) StartBackgroundObserver() bool {
	e.observer()
	return e.obs.queue != nil
}
