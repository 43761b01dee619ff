package engine

import (
	"context"
	"slices"
)

// pairBudget counts the text of a LoadContext's messages against
// Limits.MaxAnswerBytes across its stages: the recent window, the recalled
// turns, and the calls and results pairing reads from the store for them
// (one row each: a recalled tool result of a few bytes brought in its call
// of up to 256 KiB, uncounted, so topK 1000 read 256 MiB past the bound).
type pairBudget struct {
	limit  int      // Limits.MaxAnswerBytes; <= 0: no bound
	used   int      // bytes read so far (msgstore.Message.Size)
	fields []string // the request fields that shrink what the current stage reads
	// unobserved is how many messages the recent window holds because
	// the observer is behind (0: none past RecentN); the error names
	// them, and fields then leave recentN out.
	unobserved int
}

// tooLarge is the error of a read past the limit.
func (b *pairBudget) tooLarge() error {
	return &AnswerTooLargeError{Limit: b.limit, Fields: slices.Clone(b.fields), Unobserved: b.unobserved}
}

// left is how many bytes are left to read (<= 0: none), or -1 when there
// is no limit.
func (b *pairBudget) left() int {
	if b.limit <= 0 {
		return -1
	}
	return max(b.limit-b.used, 0)
}

// readBound is the bound to give a msgstore reader (which reads one
// <= 0 as none) for the next read: what is left, at least 1 (spend then
// refuses a row that passes what is left), or 0 when there is no limit.
func (b *pairBudget) readBound() int {
	if b.limit <= 0 {
		return 0
	}
	return max(b.limit-b.used, 1)
}

// spend counts n bytes read, failing with an *AnswerTooLargeError naming
// b.fields once the bytes read pass the limit.
func (b *pairBudget) spend(n int) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.used += n
	if b.used > b.limit {
		return b.tooLarge()
	}
	return nil
}

// storedCall returns the call that the result for callID at seq resultSeq
// answers (the pairing rule), or nil: the latest assistant message before
// it that made the call, unless another result for callID lies in between.
// The call read counts against the pairer's budget.
func (p *pairer) storedCall(ctx context.Context, thread, callID string, resultSeq int64) (*Message, error) {
	r, ok, err := p.e.ms.ToolCall(ctx, thread, callID, resultSeq)
	if err == nil && ok {
		if err := p.budget.spend(r.Size()); err != nil {
			return nil, err
		}
	}
	return p.e.pairedMessage(r, ok, err)
}

// storedResult is findToolResult counting the result it reads against
// the pairer's budget.
func (p *pairer) storedResult(ctx context.Context, thread, callID string, callSeq int64) (*Message, error) {
	r, ok, err := p.e.ms.ToolResult(ctx, thread, callID, callSeq)
	if err == nil && ok {
		if err := p.budget.spend(r.Size()); err != nil {
			return nil, err
		}
	}
	return p.e.pairedMessage(r, ok, err)
}
