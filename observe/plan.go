package observe

import (
	"context"
)

// Plan says what the observer would do next on a thread.
type Plan struct {
	// ThreadID is the thread planned for.
	ThreadID  string `json:"threadId"`
	Watermark int64  `json:"watermark"` // highest observed seq; 0 when none
	// PendingTokens counts the unobserved turns older than the recent window
	// and the pending turn (PendingStart), up to the last place a range may
	// end (never just before a tool result).
	PendingTokens int `json:"pendingTokens"`
	// PendingTurns counts the turns PendingTokens covers.
	PendingTurns int `json:"pendingTurns"`
	// Due is PendingTokens >= Threshold.
	Due bool `json:"due"`
	// Next is the oldest run of whole turns the next observer call would send
	// (at most ChunkTokens unless one tool-call group is larger); nil when
	// nothing is pending.
	Next []Turn `json:"-"`
}

// Plan reports the observer's plan for threadID without calling the model.
// Errors: the Source's and the database's (ctx's when cancelled).
func (o *Observer) Plan(ctx context.Context, threadID string) (*Plan, error) {
	return o.plan(ctx, threadID)
}

func (o *Observer) plan(ctx context.Context, threadID string) (*Plan, error) {
	wm, err := Watermark(ctx, o.cfg.DB, threadID)
	if err != nil {
		return nil, err
	}
	return o.planAfter(ctx, threadID, wm)
}

// planAfter is plan for the thread observed up to seq wm.
func (o *Observer) planAfter(ctx context.Context, threadID string, wm int64) (*Plan, error) {
	// The recent window and the pending turn are at the thread's end: the
	// turns after the watermark are read a page at a time and scanned,
	// keeping the oldest (the next chunk) and where a range may end near
	// the end.
	s := newPlanScan(o.cfg.ChunkTokens, max(o.cfg.RecentN, MaxPendingTurns))
	if err := eachTurn(ctx, o.cfg.Source, threadID, wm+1, s.add); err != nil {
		return nil, err
	}
	p := &Plan{ThreadID: threadID, Watermark: wm}
	// The recent window is the newest RecentN turns of the whole thread;
	// turns after the watermark are a suffix of it, so the same count works.
	end := max(s.n-o.cfg.RecentN, 0)
	// Never the pending turn: the question no answer follows yet stays
	// verbatim (PendingStart), whatever the window.
	pending, err := o.pendingStart(ctx, threadID, s.first, s.pending)
	if err != nil {
		return nil, err
	}
	// Never end before a tool result: back off to the start of its group.
	c := s.cutAt(min(end, pending))
	p.PendingTokens, p.PendingTurns = c.tokens, c.n
	p.Due = p.PendingTokens >= o.cfg.Threshold
	if c.n > 0 {
		head := s.head[:min(len(s.head), c.n)]
		p.Next = head[:chunkEnd(head, c.n, o.cfg.ChunkTokens)]
	}
	return p, nil
}

// chunkEnd returns n such that turns[:n] is the oldest run to observe of
// the total turns that may be observed, of which turns is a prefix: at most
// budget tokens, ending where a range may end. It prefers to end before a
// user turn (a whole exchange), then at any place not before a tool result;
// when even the first group exceeds budget it returns that whole group.
// The total turns end at a valid place, so total is always allowed. turns
// holds at least every turn whose earlier turns are within budget, and the
// first group with the turn after it (planScan.head).
func chunkEnd(turns []Turn, total, budget int) int {
	sum, best, bestExchange := 0, 0, 0
	for i := 0; i < total; i++ {
		sum += turns[i].tokens()
		n := i + 1
		if sum > budget {
			break
		}
		if n == total || turns[n].Role != RoleTool {
			best = n
			if n == total || turns[n].Role == RoleUser {
				bestExchange = n
			}
		}
	}
	switch {
	case bestExchange > 0:
		return bestExchange
	case best > 0:
		return best
	}
	// The first group alone is over budget: take it whole.
	n := 1
	for n < total && turns[n].Role == RoleTool {
		n++
	}
	return n
}
