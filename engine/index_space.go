package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// This file stops the outbox drainer while the lexical index cannot write
// to its disk for lack of room, and starts it again once it can. Before
// (disk51), a drain on such a disk took every batch in turn: each was read,
// embedded and given to bleve, whose persist failed, and deferred for up
// to 5 minutes: mnemo check took 87 s to fail, bleve kept every failed
// batch in memory (growing with the appends while the disk stayed full),
// /healthz said ok (SQLite still had room for the appends), and once
// there was room again the rows deferred waited out their backoff.

// indexRefused returns an ErrNoSpace error naming the disk while the
// lexical index in use cannot write to it for lack of room
// (recall.Lexical.Refused); nil otherwise (also on Postgres). The
// messages it owes stay queued in the outbox and are indexed once there
// is room. Cheap: no I/O.
func (e *Engine) indexRefused() error {
	lex := e.space.lex.Load()
	if lex == nil {
		return nil
	}
	at, err := lex.Refused()
	if err == nil {
		return nil
	}
	return &indexNoRoomError{fmt.Errorf("engine: the lexical index cannot be written: its writes have been refused for lack of room since %s; the messages it owes stay queued and are indexed once there is room (a write of it that succeeds clears this): %w",
		at.UTC().Format(time.RFC3339), diskFull(e.dir, err))}
}

// indexNoRoomError is indexRefused's and indexNoRoom's error: the lexical
// index, not mnemo.db, found no room. DiskFull follows the index for it
// (Refused), so SyncIndexes does not keep it as a refused write of its
// own, which only a commit would clear.
type indexNoRoomError struct{ err error }

func (e *indexNoRoomError) Error() string { return e.err.Error() }
func (e *indexNoRoomError) Unwrap() error { return e.err }

// indexNoRoom is the drain's error after the index refused its batch for
// lack of room (err): the drain stops there, since every later batch would
// be refused too. DiskFull says so while the index's refusal lasts
// (indexRefused); when the index has written since (scorch retried once
// the batch's rows were deferred), the error still says the batch was
// refused, and DiskFull is nil.
func (e *Engine) indexNoRoom(err error) error {
	if refused := e.indexRefused(); refused != nil {
		return refused
	}
	return &indexNoRoomError{fmt.Errorf("engine: the lexical index cannot be written; the messages it owes stay queued and are indexed once there is room: %w", diskFull(e.dir, err))}
}

// watchIndexSpace makes lex the index whose refusals the drain stops for
// and DiskFull reports, and makes its first write that succeeds after one
// (room again) retry the rows owed now (roomAgain).
func (e *Engine) watchIndexSpace(lex *recall.Lexical) {
	e.space.lex.Store(lex)
	lex.OnRoom(e.roomAgain)
}

// roomAgain tells the drainer that a write succeeded after one was
// refused for lack of room: the rows deferred meanwhile are retried now
// (retryOwed), not after their backoff (up to 5 minutes). It never
// blocks: it runs in scorch's persister goroutine too.
func (e *Engine) roomAgain() {
	select {
	case e.idx.room <- struct{}{}:
	default:
	}
}

// retryOwed makes the index and delete rows deferred after a failure due
// now (SQLite; the drainer's, on roomAgain): they failed for the lexical
// index, which can write again. The embed rows keep their backoff: their
// failure was the embedder's.
func (e *Engine) retryOwed(ctx context.Context) {
	if e.onPostgres() {
		return
	}
	n, err := e.ms.ExpediteOutbox(ctx, time.Now())
	switch {
	case err != nil:
		e.log.Warn("room again, but the deferred outbox rows could not be made due: they wait out their backoff", "err", err)
	case n > 0:
		e.log.Info("room again: the outbox rows deferred are retried now", "rows", n)
	}
}

// retryOwedAtOpen makes the index and delete rows an earlier process
// deferred due now (a writer's Open on SQLite, before its drainer
// starts): their failure was that process's lexical index's, a full disk
// most often, and no write of this process's index has been refused, so
// none that succeeds after one (roomAgain) would retry them. Before
// (disk56), they waited out their stored backoff, up to 5 minutes, on a
// disk with room again. A failure is logged, not returned: the rows keep
// their backoff (on a disk still full, the first batch is refused and the
// index's first write that succeeds after it retries them).
func (e *Engine) retryOwedAtOpen(ctx context.Context) {
	if e.onPostgres() || e.cfg.KeepOutbox {
		return
	}
	n, err := e.ms.ExpediteOutbox(ctx, time.Now())
	switch {
	case err != nil:
		e.log.Warn("the outbox rows an earlier process deferred could not be made due: they wait out their backoff", "err", diskFull(e.dir, err))
	case n > 0:
		e.log.Info("the outbox rows an earlier process deferred are retried now", "rows", n)
	}
}
