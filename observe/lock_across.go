package observe

import (
	"context"
	"fmt"

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
// With wait false a lock another session holds is ErrThreadBusy at once.
// With wait true it is tried first, and a busy one is waited for (logged
// at info: the other process may wait minutes for its model), as long as
// ctx allows. A connection lost while the lock is held releases it on the
// server: another process may then observe the thread too, and each range
// is still stored once (storeObservation's transaction lock).
func (o *Observer) lockAcross(ctx context.Context, threadID string, wait bool) (unlock func(), err error) {
	unlock, held, err := store.TryLockSession(ctx, o.cfg.DB, lockClass, threadID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("observe: lock thread %s: %w", threadID, err)
	case held:
		return unlock, nil
	case !wait:
		return nil, fmt.Errorf("%w: %s", ErrThreadBusy, threadID)
	}
	o.cfg.Logger.InfoContext(ctx, "another process is observing the thread; waiting for it", "thread", threadID)
	unlock, err = store.LockSession(ctx, o.cfg.DB, lockClass, threadID)
	if err != nil {
		return nil, fmt.Errorf("observe: waiting for another process observing thread %s: %w", threadID, err)
	}
	return unlock, nil
}
