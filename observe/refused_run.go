package observe

import "sync"

// aloneAfter is how many skips in a row (refusedRuns) make the observer
// send a thread's next turns one at a time.
const aloneAfter = 2

// refusedRuns holds, per thread, the skips in a row at its watermark:
// turns the endpoint refused alone for their content (skipTurns), one
// range right after the other, with no answered chunk between. From
// aloneAfter of them on, Observe sends the next chunk as one message (or
// one tool-call group), not a whole chunk cut in two until the refused
// turn is alone: an endpoint that refuses a whole thread's content cost
// log2(turns a chunk)+1 refused calls a turn, and a probe (readme72 F6:
// 586 turns skipped in one mnemo observe, 2,148 calls); now one call a
// turn. A chunk answered ends the run, and so does Forget; a run whose
// next seq is no longer the thread's next turn (the watermark moved
// otherwise: ObserveRange, another process, an erasure) is dropped: an
// entry is held only for a thread whose last observation was a skip. It
// lives in the Observer: a restart forgets it, and the next skips
// isolate their turns by halving again, aloneAfter times.
type refusedRuns struct {
	mu sync.Mutex
	m  map[string]refusedRun
}

// refusedRun is n skips in a row, the last ending just before seq next.
type refusedRun struct {
	n    int
	next int64
}

// skipped records the skip of threadID's from..to: one more in a row
// when it starts where the last ended, else the first.
func (r *refusedRuns) skipped(threadID string, from, to int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[string]refusedRun)
	}
	run := r.m[threadID]
	if run.next != from {
		run.n = 0
	}
	r.m[threadID] = refusedRun{n: run.n + 1, next: to + 1}
}

// alone reports whether threadID's chunk starting at seq next is sent
// as one message (or tool-call group): aloneAfter skips or more in a row
// ended just before it. A run that ended elsewhere is dropped (the
// watermark moved otherwise), so the runs held are those of threads
// whose last observation was a skip.
func (r *refusedRuns) alone(threadID string, next int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.m[threadID]
	if ok && run.next != next {
		delete(r.m, threadID)
	}
	return ok && run.n >= aloneAfter && run.next == next
}

// forget ends threadID's run: a chunk of it was answered, or it was
// erased.
func (r *refusedRuns) forget(threadID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, threadID)
}
