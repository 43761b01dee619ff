package observe

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// lockClass is the first key of the observer's session advisory lock per
// thread on Postgres ("mnob"), apart from the journal's ("mnjl") and the
// transaction locks that store an observation.
const lockClass int32 = 0x6d6e6f62

// lockAcross takes threadID's observer lock across processes and returns
// the function that releases it: on Postgres a session advisory lock on
// the thread (of the current schema) on a connection of its own
// (store.LockSession, as the journal's tool applications take theirs),
// held for the whole call, model calls included, so two processes never
// call the model for one thread at once; the one that comes second finds
// the thread observed and calls the model only for what is still due. On
// SQLite it takes nothing: one process holds a data directory, and its
// calls wait for each other (lockHere).
//
// With opt.NoWait a lock another session holds is ErrThreadBusy at once.
// Else it is tried first, and a busy one is waited for (logged at info:
// the other process may wait minutes for its model), as long as ctx
// allows; opt.Waiting is called once the wait passes WaitNotice. A connection lost while the lock is held releases it on the
// server: another process may then observe the thread too, and each range
// is still stored once (storeObservation's transaction lock).
func (o *Observer) lockAcross(ctx context.Context, threadID string, opt Options) (unlock func(), err error) {
	unlock, held, err := store.TryLockSession(ctx, o.cfg.DB, lockClass, threadID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("observe: lock thread %s: %w", threadID, err)
	case held:
		return unlock, nil
	case opt.NoWait:
		return nil, fmt.Errorf("%w: %s", ErrThreadBusy, threadID)
	}
	o.cfg.Logger.InfoContext(ctx, "another process is observing the thread; waiting for it", "thread", threadID)
	if opt.Waiting != nil {
		notice := time.AfterFunc(WaitNotice, func() { opt.Waiting(threadID) })
		defer notice.Stop()
	}
	unlock, err = store.LockSession(ctx, o.cfg.DB, lockClass, threadID)
	if err != nil {
		return nil, fmt.Errorf("observe: waiting for another process observing thread %s: %w", threadID, err)
	}
	return unlock, nil
}
