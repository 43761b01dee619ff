package observe

import (
	"context"
	"errors"
)

// inputCap is the observer's bound on a chunk after the model said a
// prompt was over its context (ErrInputTooLong): half the tokens of the
// chunk that failed, lowered again by each further such failure, for
// every thread (one model, one context). 0 means none: ChunkTokens
// alone bounds a chunk. It lives in the Observer: a restart forgets it.

// capChunk is turns (Plan.Next) cut to the observer's inputCap, at the
// last place a range may end within it (chunkEnd); turns whole when no
// cap is set or the first tool-call group alone is over it.
func (o *Observer) capChunk(turns []Turn) []Turn {
	c := int(o.inputCap.Load())
	if c <= 0 || len(turns) == 0 {
		return turns
	}
	return turns[:chunkEnd(turns, len(turns), c)]
}

// canCut reports whether err says turns were over the model's context
// (ErrInputTooLong) and half their tokens hold a shorter chunk (not one
// tool-call group alone).
func canCut(turns []Turn, err error) bool {
	if !errors.Is(err, ErrInputTooLong) {
		return false
	}
	return chunkEnd(turns, len(turns), turnTokens(turns)/2) < len(turns)
}

// cutChunk, when turns were over the model's context and can be cut
// (canCut), lowers the observer's inputCap to half their tokens, logs it
// at WARN, and reports true: the caller sends the smaller chunk at once.
// Before, the same chunk was sent at every observation, failing the same
// way (obs64).
func (o *Observer) cutChunk(ctx context.Context, turns []Turn, err error) bool {
	if !canCut(turns, err) {
		return false
	}
	half := int64(turnTokens(turns) / 2)
	for {
		c := o.inputCap.Load()
		if c > 0 && c <= half {
			break
		}
		if o.inputCap.CompareAndSwap(c, half) {
			break
		}
	}
	first, last := turns[0], turns[len(turns)-1]
	o.cfg.Logger.WarnContext(ctx, "observer chunk over the model's context length; chunks are cut to capTokens from now on (until a restart): lower observe.chunkTokens to at most capTokens, or use a model with a longer context",
		"thread", first.ThreadID, "fromSeq", first.Seq, "toSeq", last.Seq, "tokens", turnTokens(turns), "capTokens", half, "chunkTokens", o.cfg.ChunkTokens, "err", err)
	return true
}

// turnTokens sums the estimated tokens of turns.
func turnTokens(turns []Turn) int {
	n := 0
	for _, t := range turns {
		n += t.tokens()
	}
	return n
}
