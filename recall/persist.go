package recall

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// This file makes a batch wait for scorch's persister itself, so that a
// full disk fails the batch without breaking the index.
//
// scorch waits for the persister inside Batch unless its config says
// "unsafe_batch"; when that persist fails (no room on the disk) Batch
// closes the batch's new segment although scorch's root already holds it
// and the persister retries it (bleve v2.6.3 index/scorch/scorch.go,
// Batch: "_ = newSegment.Close()" after prepareSegment's error). The
// closed in-memory segment has no caches left: the next batch, search or
// count on the index panicked ("assignment to entry in nil map", zapx
// invertedIndexCache.insertLOCKED), which damage.go took for damage, and
// the engine quarantined a whole index for a full disk (readme48 F1).
// With unsafe_batch, Batch returns once the segment is in the root, and
// batch waits here for the batch's persisted callback (scorch calls it
// once a persist holding the segment succeeded) or for a persist that
// failed for lack of room (onAsyncError, persistFailed): the batch then
// fails with that error, matching NoSpace, the index stays whole and
// answers from memory what it could not write, and scorch's persister
// writes it once there is room.

// persistState tells the batches waiting for scorch's persister that a
// persist failed for lack of room, and keeps that refusal until a persist
// succeeds (Refused). The zero value is ready.
type persistState struct {
	mu     sync.Mutex
	failed chan struct{} // closed (and dropped) by the next failure; nil: none watched
	err    error         // the last failure
	// refused is the last failure while no persist has succeeded since;
	// refusedAt is when the first of them came.
	refused   error
	refusedAt time.Time
	room      atomic.Pointer[func()] // OnRoom's function
}

// watch returns a channel closed by the next failure.
func (p *persistState) watch() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed == nil {
		p.failed = make(chan struct{})
	}
	return p.failed
}

// fail records err and wakes the watchers.
func (p *persistState) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
	if p.refused == nil {
		p.refusedAt = time.Now()
	}
	p.refused = err
	if p.failed != nil {
		close(p.failed)
		p.failed = nil
	}
}

// succeeded records a persist that succeeded: it clears the refusal and
// reports whether there was one.
func (p *persistState) succeeded() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	was := p.refused != nil
	p.refused, p.refusedAt = nil, time.Time{}
	return was
}

// lastErr is the last failure.
func (p *persistState) lastErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// noSpaceRetryPause is how long scorch's persister waits after a persist
// that failed for lack of room before it tries again: it retries at once,
// forever (bleve v2.6.3 persisterLoop: "continue OUTER"), which kept a
// core busy while the disk was full.
const noSpaceRetryPause = 250 * time.Millisecond

// persistFailed is onAsyncError for a persist that failed for lack of
// room: the waiting batches fail with err, and the persister pauses
// (it calls this from its own goroutine) before it retries.
func (l *Lexical) persistFailed(err error) {
	l.persist.fail(err)
	select {
	case <-time.After(noSpaceRetryPause):
	case <-l.damage.ch:
	}
}

// isPersistError reports whether err is scorch's report of a failed
// persist (not a merge's or a cleanup's).
func isPersistError(err error) bool { return errors.Is(err, scorch.ErrPersist) }

// awaitPersisted makes b signal the returned channel once scorch has
// persisted it; nil for an index in memory, which persists nothing.
func (l *Lexical) awaitPersisted(b *bleve.Batch) <-chan error {
	if l.path == "" {
		return nil
	}
	ch := make(chan error, 1)
	var once sync.Once
	b.SetPersistedCallback(func(err error) { once.Do(func() { ch <- err }) })
	return ch
}

// waitPersisted waits for the batch whose callback is persisted (see
// awaitPersisted) to be persisted: nil then; the failure when a persist
// failed for lack of room since failed was watched (the batch stays in
// memory and scorch persists it once there is room: a retry of the batch
// replaces the same documents); the damage when the index turns damaged.
func (l *Lexical) waitPersisted(persisted <-chan error, failed <-chan struct{}) error {
	if persisted == nil {
		return nil
	}
	select {
	case err := <-persisted:
		return err
	case <-failed:
		return fmt.Errorf("not persisted: %w", l.persist.lastErr())
	case <-l.damage.ch:
		return l.damage.err
	}
}

// persistNew waits until the index idx that bleve has just created is
// persisted. bleve stores the mapping with a batch of its own, which with
// unsafe_batch returns before it is written: an index closed at once was
// left without a mapping, which the next open took for damage ("error
// parsing mapping JSON"). An empty batch persisted after it persists it.
func (l *Lexical) persistNew(idx bleve.Index) error {
	b := idx.NewBatch()
	persisted := l.awaitPersisted(b)
	failed := l.persist.watch()
	if err := idx.Batch(b); err != nil {
		return err
	}
	return l.waitPersisted(persisted, failed)
}

// Refused returns the last write of the index to its disk that was
// refused for lack of room (an error matching NoSpace) and when the first
// refusal since the last write that succeeded came, while no write has
// succeeded since; a zero time and nil otherwise (also for an index in
// memory). While it is set scorch keeps what it could not write in memory
// and tries again every noSpaceRetryPause (250 ms); the first try that
// succeeds clears it (OnRoom). Cheap: no I/O.
func (l *Lexical) Refused() (time.Time, error) {
	l.persist.mu.Lock()
	defer l.persist.mu.Unlock()
	return l.persist.refusedAt, l.persist.refused
}

// OnRoom makes l call fn each time a write of the index to its disk
// succeeds after one was refused for lack of room (Refused turns nil):
// the disk has room again. fn runs in scorch's persister goroutine and
// must not block. A later call replaces fn (nil: none).
func (l *Lexical) OnRoom(fn func()) {
	if fn == nil {
		l.persist.room.Store(nil)
		return
	}
	l.persist.room.Store(&fn)
}

// persisted is scorch's report of a persist that succeeded
// (onEvent): a refusal kept ends, and OnRoom's function is called.
func (l *Lexical) persisted() {
	if !l.persist.succeeded() {
		return
	}
	if fn := l.persist.room.Load(); fn != nil {
		(*fn)()
	}
}
