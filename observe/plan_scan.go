package observe

// planScan takes in the turns after a thread's watermark one at a time, in
// seq order, and keeps what Plan needs of them: the oldest turns (the next
// chunk is a prefix of them), the running token sum, where the pending turn
// starts, and, for the newest keep turns, where a range ending there would
// end after backing off before tool results. Its memory is the head and
// at most 2*keep cuts, whatever the thread's length.
type planScan struct {
	budget int // ChunkTokens
	keep   int // cuts kept: max(RecentN, MaxPendingTurns), which bounds how far back of the end a range may end

	n     int   // turns scanned
	sum   int   // their tokens
	first int64 // seq of the first turn scanned

	// head is the oldest turns: each whose earlier turns hold at most
	// budget tokens, and the first tool-call group with the turn after it
	// (chunkEnd reads no further).
	head      []Turn
	headOpen  bool // head is still taking turns
	firstOnly bool // the turns after the first one are all tool results so far

	// cuts[i] is cut(base+i): where a range ending before turn base+i
	// ends once it backs off before tool results.
	cuts []cut
	base int
	last cut // the last place before a turn that is not a tool result

	pending pendingScan
}

// cut is a place a range may end: before turn n, after tokens tokens.
type cut struct{ n, tokens int }

func newPlanScan(budget, keep int) *planScan {
	return &planScan{budget: budget, keep: keep, headOpen: true, firstOnly: true}
}

// add scans the next turn.
func (s *planScan) add(t Turn) {
	if s.n == 0 {
		s.first = t.Seq
	}
	if s.headOpen && (s.sum <= s.budget || s.firstOnly) {
		s.head = append(s.head, t)
	} else {
		s.headOpen = false
	}
	if s.n > 0 && t.Role != RoleTool {
		s.firstOnly = false
	}
	if t.Role != RoleTool {
		s.last = cut{n: s.n, tokens: s.sum}
	}
	s.cuts = append(s.cuts, s.last)
	if len(s.cuts) > 2*s.keep {
		drop := len(s.cuts) - s.keep
		s.cuts = append(s.cuts[:0], s.cuts[drop:]...)
		s.base += drop
	}
	s.pending.add(t)
	s.sum += t.tokens()
	s.n++
}

// cutAt returns where a range meant to end before turn end (0 <= end <=
// n, end >= n-keep) ends: never just before a tool result, so it backs off
// to the start of the tool-call group (the start of the turns at most).
func (s *planScan) cutAt(end int) cut {
	switch end {
	case 0:
		return cut{}
	case s.n:
		return cut{n: s.n, tokens: s.sum}
	}
	return s.cuts[end-s.base]
}
