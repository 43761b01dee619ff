package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mnemo-go/mnemo/recall"
)

// This file keeps a search from running on a recall index that is closed
// under it. Reindex, the damage recovery (lexical_damage.go) and Close
// replace or close the open index under indexState.mu; a search used to
// take the index under the read lock and run after the unlock, so one that
// took it just before ran on a closed index: its bleve part answered
// "unavailable: recall: index is closed" (and the search failed when the
// vector channel failed too), and a shard it loaded went into the closed
// index. Now a search counts itself on the index it took (acquire), and
// whoever closes the index waits, holding mu, until the searches counted on
// it have left (awaitIdle): searches that start meanwhile wait for mu and
// run on the new index. A rebuild releases mu once the new, empty index is
// open and queues the stored messages for it afterwards; until the queue
// is committed the index is marked unqueued and its searches count every
// message of their resource as not indexed yet.

// indexUse counts the searches running on one open recall.Index; each
// index the engine opens (Open, Reindex, the damage recovery) gets its own.
// Not a sync.WaitGroup: a wait given up (awaitIdle's ctx ended) leaves the
// index open, and searches must go on counting on it meanwhile.
type indexUse struct {
	mu   sync.Mutex
	n    int           // searches running
	idle chan struct{} // closed when n drops to 0 while awaited; nil when not awaited
	// unqueued: the index was opened empty by a rebuild (Reindex, the
	// damage recovery) whose queueing of every stored message has not
	// committed yet. The outbox does not count what the index misses
	// then, so a search on it takes every message of its resource as not
	// indexed yet (backlog) rather than answer "ok" without the hits.
	// Cleared once the queue is committed; kept when queueing failed.
	unqueued atomic.Bool
}

// add counts one more search.
func (u *indexUse) add() {
	u.mu.Lock()
	u.n++
	u.mu.Unlock()
}

// release ends one search's use of its index.
func (u *indexUse) release() {
	u.mu.Lock()
	u.n--
	if u.n == 0 && u.idle != nil {
		close(u.idle)
		u.idle = nil
	}
	u.mu.Unlock()
}

// idleChan returns a channel closed once no search is running (nil when
// none is now).
func (u *indexUse) idleChan() <-chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == 0 {
		return nil
	}
	if u.idle == nil {
		u.idle = make(chan struct{})
	}
	return u.idle
}

// acquire returns the open index and its use, counted until the caller
// calls release; nil, nil when no index is open (Close). Counted under
// mu's read lock: whoever replaces the index holds mu and waits for the
// count (awaitIdle). The caller must not take mu while it holds the use.
func (s *indexState) acquire() (*recall.Index, *indexUse) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.ix == nil {
		return nil, nil
	}
	s.use.add()
	return s.ix, s.use
}

// setIndex makes ix (nil: none) the open index, with a use count of its
// own. The caller holds mu.
func (s *indexState) setIndex(ix *recall.Index) {
	s.ix = ix
	s.use = &indexUse{}
}

// setRebuiltIndex makes ix, opened empty by a rebuild, the open index,
// marked unqueued until the caller, having released mu and queued every
// stored message, clears the mark on the returned use. The caller holds
// mu.
func (s *indexState) setRebuiltIndex(ix *recall.Index) *indexUse {
	s.setIndex(ix)
	s.use.unqueued.Store(true)
	return s.use
}

// awaitIdle waits until every search counted on the open index has left,
// or ctx ends (then an error wrapping ctx's, and the searches still run).
// The caller holds mu, so no search starts on the index meanwhile; it then
// closes or replaces it. A search holds its use for its own run only (its
// query embedding is bounded by Config.QueryEmbedTimeout).
func (s *indexState) awaitIdle(ctx context.Context) error {
	if s.use == nil {
		return nil
	}
	idle := s.use.idleChan()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("engine: waiting for the searches of the recall index: %w", ctx.Err())
	}
}
