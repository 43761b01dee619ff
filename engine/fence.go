package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// DefaultEraseWait bounds how long an erasure waits for the work in flight
// on its threads and resources (LoadContext, working-memory writes) before
// it gives up with ErrEraseBusy. An observer run on an erased thread does
// not count: the erasure cancels it.
const DefaultEraseWait = 30 * time.Second

// fence orders erasures against the work that reads turns and later records
// something derived from them: an observer run reads a thread's turns,
// waits for the model, then records the answer and its memo entry;
// LoadContext reads turns and then records their previews; a
// working-memory write records what a run of the resource derived. Without
// the fence, a turn erased in between would come back inside that
// observation, record or state (TestEraseDuringObservation,
// TestEraseDuringLoadContext, TestEraseRacesWorkingMemoryTool).
//
// The fence is keyed: "t:<threadId>" for observer runs (they read one
// thread), "r:<resourceId>" for LoadContext (recall reaches every thread of
// the resource) and working-memory writes. Work holds a key shared; an
// erasure holds every key it touches exclusively, so work on other threads
// and resources never waits for it (TestEraseDoesNotStallOtherResources).
// An erasure that wants a key turns new holders away first (they wait), so
// a stream of LoadContexts cannot starve it. Keys are taken in sorted order
// and work never holds two keys, so nothing deadlocks.
type fence struct {
	mu   sync.Mutex
	keys map[string]*fenceKey
}

// fenceKey is the state of one key. wake is closed (and replaced) whenever
// holders or erasing change.
type fenceKey struct {
	holders int
	erasing bool
	cancels map[*fenceHold]context.CancelCauseFunc
	wake    chan struct{}
}

// fenceHold is one shared hold; it identifies a cancellable holder.
type fenceHold struct{ key string }

func threadKey(id string) string   { return "t:" + id }
func resourceKey(id string) string { return "r:" + id }

// entry returns the state of key; f.mu must be held.
func (f *fence) entry(key string) *fenceKey {
	if f.keys == nil {
		f.keys = map[string]*fenceKey{}
	}
	k := f.keys[key]
	if k == nil {
		k = &fenceKey{wake: make(chan struct{})}
		f.keys[key] = k
	}
	return k
}

// signal wakes the waiters of k and drops k when nobody uses it; f.mu must
// be held.
func (f *fence) signal(key string, k *fenceKey) {
	close(k.wake)
	k.wake = make(chan struct{})
	if k.holders == 0 && !k.erasing {
		delete(f.keys, key)
	}
}

// enter holds key shared until the returned func is called, waiting while
// an erasure holds or wants it. With cancellable, the returned context is
// cancelled (cause ErrObserveCancelled) when an erasure takes the key: the
// holder's work is obsolete. It returns ctx's error when ctx ends first.
func (f *fence) enter(ctx context.Context, key string, cancellable bool) (context.Context, func(), error) {
	f.mu.Lock()
	for {
		k := f.entry(key)
		if !k.erasing {
			break
		}
		wake := k.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		f.mu.Lock()
	}
	k := f.entry(key)
	k.holders++
	h := &fenceHold{key: key}
	work, cancel := ctx, context.CancelCauseFunc(func(error) {})
	if cancellable {
		work, cancel = context.WithCancelCause(ctx)
		if k.cancels == nil {
			k.cancels = map[*fenceHold]context.CancelCauseFunc{}
		}
		k.cancels[h] = cancel
	}
	f.mu.Unlock()
	var once sync.Once
	return work, func() {
		once.Do(func() {
			f.mu.Lock()
			k := f.keys[key]
			k.holders--
			delete(k.cancels, h)
			f.signal(key, k)
			f.mu.Unlock()
			cancel(nil)
		})
	}, nil
}

// lock holds keys exclusively until the returned func is called: it marks
// each key (in sorted order, waiting for another erasure that holds it),
// cancels the cancellable holders, and waits for the others to leave. It
// gives up after wait (ErrEraseBusy) or when ctx ends, releasing what it
// took.
func (f *fence) lock(ctx context.Context, keys []string, wait time.Duration) (func(), error) {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var taken []string
	unlock := func() {
		f.mu.Lock()
		for _, key := range taken {
			k := f.keys[key]
			k.erasing = false
			f.signal(key, k)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	for _, key := range keys {
		for {
			k := f.entry(key)
			if !k.erasing {
				k.erasing = true
				taken = append(taken, key)
				for _, cancel := range k.cancels {
					cancel(ErrObserveCancelled)
				}
				break
			}
			if err := f.await(ctx, k.wake, timer); err != nil {
				f.mu.Unlock()
				unlock()
				return nil, err
			}
		}
	}
	for _, key := range keys {
		for f.keys[key].holders > 0 {
			if err := f.await(ctx, f.keys[key].wake, timer); err != nil {
				f.mu.Unlock()
				unlock()
				return nil, err
			}
		}
	}
	f.mu.Unlock()
	return unlock, nil
}

// await releases f.mu until wake is closed, the timer fires or ctx ends,
// and takes f.mu again.
func (f *fence) await(ctx context.Context, wake <-chan struct{}, timer *time.Timer) error {
	f.mu.Unlock()
	defer f.mu.Lock()
	select {
	case <-wake:
		return nil
	case <-timer.C:
		return fmt.Errorf("%w: work in flight on the same thread or resource did not finish in time", ErrEraseBusy)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// eraseFenced runs the erasure transaction holding the fence keys of every
// thread and resource it touches. The keys are read before the transaction;
// when the transaction finds more (a thread appended to the resource in
// between), it is rolled back and run again with those keys too.
//
// guard, when not nil, runs first in the transaction, once the thread of
// a guarded erasure (kind eraseThread, targets[0]) is locked against
// appends from other processes (msgstore.LockThreads, Postgres): an append
// that commits after the guard read the thread would otherwise be erased
// with it. Its error rolls the erasure back and is returned.
func (e *Engine) eraseFenced(ctx context.Context, kind eraseKind, targets []string, guard func(context.Context, *store.Tx) error) (*EraseResult, error) {
	keys, err := e.eraseKeys(ctx, kind, targets)
	if err != nil {
		return nil, err
	}
	wait := e.cfg.EraseWait
	if wait <= 0 {
		wait = DefaultEraseWait
	}
	for {
		unlock, err := e.erasure.fence.lock(ctx, keys, wait)
		if err != nil {
			return nil, err
		}
		var res *EraseResult
		var more []string
		marker := ulid.Make().String()
		err = e.tx(ctx, func(tx *store.Tx) error {
			if err := e.guardErasure(ctx, tx, kind, targets, guard); err != nil {
				return err
			}
			r, err := e.eraseTx(ctx, tx, kind, targets, marker)
			if err != nil {
				return err
			}
			if more = missing(r.keys, keys); len(more) > 0 {
				return errWiden
			}
			res = r
			return nil
		})
		unlock()
		switch {
		case errors.Is(err, errWiden):
			keys = append(keys, more...)
			continue
		case err != nil:
			return nil, err
		}
		res.marker = marker
		return res, nil
	}
}

// guardErasure runs guard (when not nil) in tx, once tx holds the append
// lock of the thread a guarded erasure erases (a guard decides on one
// thread: kind eraseThread), then calls the test hook (SetAfterEraseGuard).
func (e *Engine) guardErasure(ctx context.Context, tx *store.Tx, kind eraseKind, targets []string, guard func(context.Context, *store.Tx) error) error {
	if guard == nil {
		return nil
	}
	if kind != eraseThread {
		return fmt.Errorf("engine: a guarded erasure erases one thread, not a %s", kind)
	}
	if err := e.ms.LockThreads(ctx, tx, targets[0]); err != nil {
		return fmt.Errorf("engine: erase: %w", err)
	}
	if err := guard(ctx, tx); err != nil {
		return err
	}
	if f := e.erasure.guarded.Load(); f != nil {
		(*f)()
	}
	return nil
}

// errWiden rolls back an erasure transaction that touches a thread or
// resource whose fence key it does not hold.
var errWiden = errors.New("engine: erasure needs more fence keys")

// eraseKeys reads the fence keys of the threads and resources an erasure
// will touch.
func (e *Engine) eraseKeys(ctx context.Context, kind eraseKind, targets []string) ([]string, error) {
	keys := []string{}
	var refs []msgstore.ThreadRef
	var err error
	switch kind {
	case eraseMessages:
		refs, err = e.ms.MessageThreads(ctx, targets)
	case eraseThread:
		keys = append(keys, threadKey(targets[0]))
		refs, err = e.ms.ThreadRefs(ctx, targets[0])
	case eraseResource:
		keys = append(keys, resourceKey(targets[0]))
		refs, err = e.ms.ResourceThreads(ctx, targets[0])
	}
	for _, r := range refs {
		keys = append(keys, threadKey(r.ThreadID), resourceKey(r.ResourceID))
	}
	if err != nil {
		return keys, fmt.Errorf("engine: erase: %w", err)
	}
	return keys, nil
}

// missing returns the keys of want that are not in have.
func missing(want, have []string) []string {
	var out []string
	for _, k := range want {
		if !slices.Contains(have, k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
