package engine

import (
	"context"
	"fmt"
	"slices"
)

// Page sizes of MessagesPage and ListThreadsPage: DefaultPageLimit when a
// request leaves its limit 0, at most MaxPageLimit.
const (
	DefaultPageLimit = 100
	MaxPageLimit     = 1000
)

// PageRequest asks for one page of a thread's messages. Seqs bound the page
// inclusively (FromSeq 0 means 1, ToSeq 0 means to the end). With
// BeforeSeq > 0 the page is the newest Limit messages with seq < BeforeSeq
// (and >= FromSeq), else the oldest Limit from FromSeq. Limit is 1 to
// MaxPageLimit; 0 means DefaultPageLimit.
type PageRequest struct {
	FromSeq, ToSeq, BeforeSeq int64
	Limit                     int
}

// MessagePage is one page of a thread's messages, in seq order.
type MessagePage struct {
	Messages []Message
	// NextFromSeq, when > 0, is the FromSeq of the next (newer) page of a
	// forward request: more messages are within its bounds.
	NextFromSeq int64
	// NextBeforeSeq, when > 0, is the BeforeSeq of the next (older) page
	// of a backward request (BeforeSeq set, or the newest page).
	NextBeforeSeq int64
}

// MessagesPage returns one page of the thread's messages (PageRequest),
// reading at most Limit+1 rows: never the whole thread.
//
// Errors: ErrThreadNotFound for an unknown thread; a *ValidationError
// (ErrInvalidInput) naming "limit", "fromSeq", "toSeq" or "beforeSeq" for
// a value out of range.
func (e *Engine) MessagesPage(ctx context.Context, threadID string, req PageRequest) (*MessagePage, error) {
	if err := checkPage(&req); err != nil {
		return nil, err
	}
	if _, err := e.GetThread(ctx, threadID); err != nil {
		return nil, err
	}
	newest := req.BeforeSeq > 0
	if req.ToSeq == 0 {
		req.ToSeq = 1<<63 - 1
	}
	if newest {
		// BeforeSeq 1 leaves ToSeq 0, below every seq: an empty page, not
		// the whole thread's newest.
		req.ToSeq = min(req.ToSeq, req.BeforeSeq-1)
	}
	rows, err := e.ms.MessagesPage(ctx, threadID, req.FromSeq, req.ToSeq, req.Limit+1, newest)
	ms, err := messagesFromRows(rows, err)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := &MessagePage{}
	if len(ms) > req.Limit {
		ms = ms[:req.Limit]
		if newest {
			out.NextBeforeSeq = ms[req.Limit-1].Seq
		} else {
			out.NextFromSeq = ms[req.Limit-1].Seq + 1
		}
	}
	if newest {
		slices.Reverse(ms)
	}
	out.Messages = ms
	return out, nil
}

// checkPage checks a PageRequest's bounds and fills its defaults.
func checkPage(req *PageRequest) error {
	switch {
	case req.Limit < 0 || req.Limit > MaxPageLimit:
		return invalid(-1, "limit", "must be 1 to %d (0: %d), got %d", MaxPageLimit, DefaultPageLimit, req.Limit)
	case req.FromSeq < 0:
		return invalid(-1, "fromSeq", "must be >= 1 (0: 1), got %d", req.FromSeq)
	case req.ToSeq < 0 || (req.ToSeq > 0 && req.ToSeq < req.FromSeq):
		return invalid(-1, "toSeq", "must be 0 (to the end) or >= fromSeq, got %d", req.ToSeq)
	case req.BeforeSeq < 0:
		return invalid(-1, "beforeSeq", "must be >= 1 (0: none), got %d", req.BeforeSeq)
	}
	if req.Limit == 0 {
		req.Limit = DefaultPageLimit
	}
	req.FromSeq = max(req.FromSeq, 1)
	return nil
}

// ListThreadsPage returns at most limit threads (1 to MaxPageLimit; 0:
// DefaultPageLimit) of the given resources (all when empty) after skipping
// offset, ordered as ListThreads, and whether more follow. It returns at
// most limit+1 rows, but no index holds that order: the database sorts
// every thread asked for on each call, so reading n threads in pages costs
// about n/limit listings (EachThread reads them in one pass).
//
// Errors: a *ValidationError (ErrInvalidInput) naming "limit" or "offset".
func (e *Engine) ListThreadsPage(ctx context.Context, resources []string, limit, offset int) ([]Thread, bool, error) {
	if err := e.checkOpen(); err != nil {
		return nil, false, err
	}
	if limit < 0 || limit > MaxPageLimit {
		return nil, false, invalid(-1, "limit", "must be 1 to %d (0: %d), got %d", MaxPageLimit, DefaultPageLimit, limit)
	}
	if offset < 0 {
		return nil, false, invalid(-1, "offset", "must be >= 0, got %d", offset)
	}
	if limit == 0 {
		limit = DefaultPageLimit
	}
	ts, err := e.ms.ThreadsPage(ctx, resources, limit+1, offset)
	if err != nil {
		return nil, false, fmt.Errorf("engine: %w", err)
	}
	more := len(ts) > limit
	out := make([]Thread, 0, min(len(ts), limit))
	for _, t := range ts[:min(len(ts), limit)] {
		out = append(out, Thread(t))
	}
	return out, more, nil
}
