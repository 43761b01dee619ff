package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/internal/msgstore"
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
	// FromSeq is the first seq of the page's bounds (inclusive); 0 means 1.
	FromSeq int64
	// ToSeq is the last seq of the bounds (inclusive); 0 means the thread's end.
	ToSeq int64
	// BeforeSeq, when > 0, asks for the newest Limit messages below it.
	BeforeSeq int64
	// Limit is the page size in messages: 1 to MaxPageLimit, 0 means DefaultPageLimit.
	Limit int
}

// MessagePage is one page of a thread's messages, in seq order.
type MessagePage struct {
	// Messages are the page's messages in seq order; empty, not nil, past the end.
	Messages []Message
	// NextFromSeq, when > 0, is the FromSeq of the next (newer) page of a
	// forward request: more messages are within its bounds.
	NextFromSeq int64
	// NextBeforeSeq, when > 0, is the BeforeSeq of the next (older) page
	// of a backward request (BeforeSeq set, or the newest page).
	NextBeforeSeq int64
}

// MessagesPage returns one page of the thread's messages (PageRequest),
// reading at most Limit+1 rows: never the whole thread. A page ends
// earlier, with its next seq set as for a full page, once its messages'
// text passes Config.Limits.MaxAnswerBytes (DefaultMaxAnswerBytes); it
// holds at least one message. (A page of 1000 messages of 256 KiB was
// 256 MiB.)
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
	rows, cut, err := e.ms.MessagesPageWithin(ctx, threadID, req.FromSeq, req.ToSeq, req.Limit+1, newest, e.limits.MaxAnswerBytes)
	ms, err := messagesFromRows(rows, err)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := &MessagePage{}
	if len(ms) > req.Limit {
		ms, cut = ms[:req.Limit], true
	}
	if cut {
		if last := ms[len(ms)-1]; newest {
			out.NextBeforeSeq = last.Seq
		} else {
			out.NextFromSeq = last.Seq + 1
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

// ThreadsRequest asks for one page of threads (ThreadsPage).
type ThreadsRequest struct {
	// Resources are the resources whose threads are listed; none lists
	// every resource's.
	Resources []string
	// Limit is the page size, 1 to MaxPageLimit; 0 means
	// DefaultPageLimit.
	Limit int
	// Cursor is "" for the first page, else the NextCursor of the page
	// before, from a request of the same Resources (or of a subset: a
	// cursor is a place in the order, valid wherever its resource is
	// listed).
	Cursor string
}

// ThreadPage is one page of threads, in ListThreads' order.
type ThreadPage struct {
	// Threads are the page's threads; empty, not nil, past the end.
	Threads []Thread
	// NextCursor, when not "", is the ThreadsRequest.Cursor of the next
	// page: more threads follow. "" on the last page.
	NextCursor string
}

// ThreadsPage returns the threads of req.Resources (all when none) that
// follow req.Cursor in ListThreads' order, at most req.Limit. Each page
// reads about Limit+1 rows of an index that holds the order, wherever it
// starts (ListThreadsPage's offset reads every row it skips), and a thread
// created or deleted between two pages moves no other: reading every page
// gives each thread that existed throughout exactly once (one created
// meanwhile is given once if it falls after the cursor, one deleted at
// most once). The resources asked for filter every page: a cursor names a
// place, never a thread to show.
//
// Errors: a *ValidationError (ErrInvalidInput) naming "limit",
// "resources[i]" for an id no resource can have (ValidID), or
// "cursor" for a string that is not a cursor (NextCursor) or is the place
// of a resource not among Resources (another listing's).
func (e *Engine) ThreadsPage(ctx context.Context, req ThreadsRequest) (*ThreadPage, error) {
	if err := checkResources(req.Resources); err != nil {
		return nil, err
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	limit, err := threadsLimit(req.Limit)
	if err != nil {
		return nil, err
	}
	var after *msgstore.ThreadKey
	if req.Cursor != "" {
		k, err := parseThreadCursor(req.Cursor)
		if err != nil {
			return nil, err
		}
		if len(req.Resources) > 0 && !slices.Contains(req.Resources, k.ResourceID) {
			return nil, invalid(-1, "cursor", "the cursor is a place in another listing (a resource not listed here): give the nextCursor of a page of this listing, or none for the first page")
		}
		after = &k
	}
	ts, err := e.ms.ThreadsAfter(ctx, req.Resources, after, limit+1)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := &ThreadPage{Threads: make([]Thread, 0, min(len(ts), limit))}
	for _, t := range ts[:min(len(ts), limit)] {
		out.Threads = append(out.Threads, Thread(t))
	}
	if len(ts) > limit {
		out.NextCursor = threadCursor(ts[limit-1].Key())
	}
	return out, nil
}

// threadsLimit checks a page size of threads and fills its default.
func threadsLimit(limit int) (int, error) {
	if limit < 0 || limit > MaxPageLimit {
		return 0, invalid(-1, "limit", "must be 1 to %d (0: %d), got %d", MaxPageLimit, DefaultPageLimit, limit)
	}
	if limit == 0 {
		limit = DefaultPageLimit
	}
	return limit, nil
}

// ListThreadsPage returns at most limit threads (1 to MaxPageLimit; 0:
// DefaultPageLimit) of the given resources (all when empty) after skipping
// offset, ordered as ListThreads, and whether more follow.
//
// Deprecated: use ThreadsPage (this stays for the offset of GET
// /v1/threads, deprecated too). An offset counts the threads before the
// page, so a thread created or deleted between two pages shifts the next
// one (a thread given twice, or missed), and the rows skipped are read
// again on each page (reading n threads by pages of l reads about
// n²/2l rows).
//
// Errors: a *ValidationError (ErrInvalidInput) naming "limit", "offset"
// or "resources[i]" (an id no resource can have, ValidID).
func (e *Engine) ListThreadsPage(ctx context.Context, resources []string, limit, offset int) ([]Thread, bool, error) {
	if err := checkResources(resources); err != nil {
		return nil, false, err
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, false, err
	}
	limit, err := threadsLimit(limit)
	if err != nil {
		return nil, false, err
	}
	if offset < 0 {
		return nil, false, invalid(-1, "offset", "must be >= 0, got %d", offset)
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

// checkResources refuses a listing's resource id that no resource can
// have (ValidID): a *ValidationError on resources[i], where the listing
// gave an empty page as for a resource with no thread.
func checkResources(ids []string) error {
	for i, id := range ids {
		if !ValidID(id) {
			return badID(-1, fmt.Sprintf("resources[%d]", i), id, false)
		}
	}
	return nil
}
