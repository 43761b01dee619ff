package engine

import (
	"context"
	"sync"
)

// drainLock serialises the drains of the outbox, erasure's purge, the
// damage recovery and Reindex. It is a mutex whose LockCtx gives up when
// its context ends: a command waiting for the background drainer's batch
// (a use-lite embedding of 512 messages takes seconds on a loaded machine)
// returns on Ctrl-C instead of waiting for it. The zero value is unlocked.
type drainLock struct {
	once sync.Once
	ch   chan struct{} // holds one token while locked
}

func (l *drainLock) c() chan struct{} {
	l.once.Do(func() { l.ch = make(chan struct{}, 1) })
	return l.ch
}

// Lock waits for the lock.
func (l *drainLock) Lock() { l.c() <- struct{}{} }

// LockCtx waits for the lock or for ctx to end; it returns ctx.Err() (and
// does not hold the lock) when ctx ended first.
func (l *drainLock) LockCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l.c() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases the lock.
func (l *drainLock) Unlock() { <-l.c() }
