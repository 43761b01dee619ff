package observe

import (
	"context"
	"fmt"
	"math"
)

// Plan says what the observer would do next on a thread.
type Plan struct {
	ThreadID  string `json:"threadId"`
	Watermark int64  `json:"watermark"` // highest observed seq; 0 when none
	// PendingTokens counts the unobserved turns older than the recent window
	// and the pending turn (PendingStart), up to the last place a range may
	// end (never just before a tool result).
	PendingTokens int `json:"pendingTokens"`
	PendingTurns  int `json:"pendingTurns"`
	// Due is PendingTokens >= Threshold.
	Due bool `json:"due"`
	// Next is the oldest run of whole turns the next observer call would send
	// (at most ChunkTokens unless one tool-call group is larger); nil when
	// nothing is pending.
	Next []Turn `json:"-"`
}

// Plan reports the observer's plan for threadID without calling the model.
func (o *Observer) Plan(ctx context.Context, threadID string) (*Plan, error) {
	return o.plan(ctx, threadID)
}

func (o *Observer) plan(ctx context.Context, threadID string) (*Plan, error) {
	wm, err := Watermark(ctx, o.cfg.DB, threadID)
	if err != nil {
		return nil, err
	}
	turns, err := o.cfg.Source.Messages(ctx, threadID, wm+1, math.MaxInt64)
	if err != nil {
		return nil, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	p := &Plan{ThreadID: threadID, Watermark: wm}
	// The recent window is the newest RecentN turns of the whole thread;
	// turns after the watermark are a suffix of it, so the same count works.
	end := max(len(turns)-o.cfg.RecentN, 0)
	// Never the pending turn: the question no answer follows yet stays
	// verbatim (PendingStart), whatever the window.
	pending, err := o.pendingStart(ctx, threadID, turns)
	if err != nil {
		return nil, err
	}
	end = min(end, pending)
	// Never end before a tool result: back off to the start of its group.
	for end > 0 && end < len(turns) && turns[end].Role == RoleTool {
		end--
	}
	eligible := turns[:end]
	for _, t := range eligible {
		p.PendingTokens += t.tokens()
	}
	p.PendingTurns = len(eligible)
	p.Due = p.PendingTokens >= o.cfg.Threshold
	if len(eligible) > 0 {
		p.Next = eligible[:chunkEnd(eligible, o.cfg.ChunkTokens)]
	}
	return p, nil
}

// chunkEnd returns n such that turns[:n] is the oldest run to observe: at
// most budget tokens, ending where a range may end. It prefers to end before
// a user turn (a whole exchange), then at any place not before a tool result;
// when even the first group exceeds budget it returns that whole group.
// turns itself ends at a valid place, so len(turns) is always allowed.
func chunkEnd(turns []Turn, budget int) int {
	sum, best, bestExchange := 0, 0, 0
	for i, t := range turns {
		sum += t.tokens()
		n := i + 1
		if sum > budget {
			break
		}
		if n == len(turns) || turns[n].Role != RoleTool {
			best = n
			if n == len(turns) || turns[n].Role == RoleUser {
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
	for n < len(turns) && turns[n].Role == RoleTool {
		n++
	}
	return n
}
