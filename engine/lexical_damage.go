package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mnemo-go/mnemo/recall"
)

// This file handles a lexical index that turns out damaged while in use (a
// garbled segment file: bleve panics or its merger fails; recall marks the
// index damaged, see recall.Lexical.Damaged). The index is derived, so the
// engine quarantines its directory and rebuilds it from SQLite, the same way
// Open treats a directory that does not open (recall.go). Detection points:
// every drain of the outbox (so a search or a background failure leads to
// the rebuild within a drain), an erasure's purge, and Check.

// damagedIndex returns the open lexical index's damage (matching
// recall.ErrCorrupt), or nil.
func (e *Engine) damagedIndex() error {
	ix := e.idx.index()
	if ix == nil {
		return nil
	}
	return ix.Lexical().Damaged()
}

// recoverDamagedIndex quarantines the lexical index when it is damaged and
// starts its rebuild from SQLite; it returns whether it did. The caller
// holds e.idx.drainMu. It first waits for the searches running on the
// damaged index to finish (indexuse.go; until ctx ends: then it returns
// an error wrapping ctx's and leaves the index as it is).
//
// The outbox's index rows are replaced by one per stored message
// (msgstore's ReplaceIndexQueue); delete rows stay, and are applied to the
// fresh index as any: the removal of an erased message also rewrites or
// deletes its resource's shard snapshot, which the quarantine leaves in
// place. Dropping them (as this did) left an erasure whose removals were
// pending at the recovery with its text and vectors in the snapshot file.
// The rows are queued after e.idx.mu is released, the new index marked
// unqueued until then (indexUse): a search of it meanwhile counts every
// message of its resource as not indexed yet. It counted only the index
// rows the damaged index had left, and with none answered "ok" without
// the hits; when the queueing fails it goes on counting them all.
func (e *Engine) recoverDamagedIndex(ctx context.Context) (bool, error) {
	e.idx.mu.Lock()
	old := e.idx.ix
	if old == nil || old.Lexical().Damaged() == nil {
		e.idx.mu.Unlock()
		return false, nil
	}
	if err := e.idx.awaitIdle(ctx); err != nil {
		e.idx.mu.Unlock()
		return false, err
	}
	cause := old.Lexical().Damaged()
	e.idx.setIndex(nil)
	if err := old.Close(); err != nil {
		e.log.Warn("closing the damaged lexical index", "err", err)
	}
	path := filepath.Join(e.dir, LexicalDir)
	q, err := e.quarantine(path)
	if err != nil {
		e.idx.mu.Unlock()
		return false, fmt.Errorf("engine: quarantine damaged %s: %w (damage: %v)", path, err, cause)
	}
	lex, err := recall.OpenLexical(path)
	if err != nil {
		e.idx.mu.Unlock()
		return false, fmt.Errorf("engine: reopen lexical index after quarantine: %w", err)
	}
	ix, err := recall.NewIndex(e.recallConfig(lex))
	if err != nil {
		lex.Close()
		e.idx.mu.Unlock()
		return false, fmt.Errorf("engine: %w", err)
	}
	use := e.idx.setRebuiltIndex(ix)
	e.idx.setNote("lexical index was damaged (quarantined to " + q + "); rebuilding")
	e.idx.quarantined = q
	e.idx.mu.Unlock()
	e.log.Warn("lexical index damaged: quarantined, rebuilding from the store", "quarantine", q, "err", cause)
	e.publish(Event{Reason: EventQuarantined, Path: q, Detail: cause.Error()})

	e.idx.beforeQueueing()
	stored, err := e.ms.ReplaceIndexQueue(ctx, e.now())
	if err != nil {
		return true, fmt.Errorf("engine: queue rebuild after quarantine: %w", err)
	}
	use.unqueued.Store(false)
	e.publish(Event{Reason: EventRebuild, Count: int(stored), Path: path, Detail: "rebuilding the quarantined lexical index from the store"})
	e.kickOutbox()
	return true, nil
}

// rebuildDamaged quarantines the damaged lexical index, rebuilds it from
// SQLite before returning, and returns the quarantine path.
func (e *Engine) rebuildDamaged(ctx context.Context) (string, error) {
	if err := e.idx.drainMu.LockCtx(ctx); err != nil {
		return "", err
	}
	_, err := e.recoverDamagedIndex(ctx)
	e.idx.drainMu.Unlock()
	if err != nil {
		return "", err
	}
	e.idx.mu.RLock()
	q := e.idx.quarantined
	e.idx.mu.RUnlock()
	return q, e.SyncIndexes(ctx)
}

// isDamage reports whether err says the lexical index is damaged.
func isDamage(err error) bool { return errors.Is(err, recall.ErrCorrupt) }

// recoverIfDamaged is recoverDamagedIndex behind a cheap test, for the
// drain loops (the caller holds e.idx.drainMu).
func (e *Engine) recoverIfDamaged(ctx context.Context) error {
	if e.damagedIndex() == nil {
		return nil
	}
	_, err := e.recoverDamagedIndex(ctx)
	return err
}
