package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
// recall.ErrCorrupt), that of a recovery still owed when none is open
// (index_lost.go), or nil.
func (e *Engine) damagedIndex() error {
	ix := e.idx.index()
	if ix == nil {
		return e.idx.lostCause()
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
//
// A directory already gone (removed under the engine) is not quarantined,
// only created fresh. When the quarantine or the opening of the new index
// fails, no index is open and the recovery is owed (index_lost.go): every
// drain tries it again, and IndexUnavailable says so meanwhile. Before,
// nothing opened an index again until a restart.
func (e *Engine) recoverDamagedIndex(ctx context.Context) (bool, error) {
	e.idx.mu.Lock()
	cause, err := e.takeDamaged(ctx)
	if cause == nil || err != nil {
		e.idx.mu.Unlock()
		return false, err
	}
	ix, q, err := e.reopenLexical(cause)
	if err != nil {
		// The index stays closed: every drain tries again (index_lost.go);
		// the first failure wakes the drainer, which a caller's drain
		// (SyncIndexes) may have left idle.
		first := e.idx.lost == nil
		e.idx.lost = &lostIndex{cause: cause, last: err}
		e.idx.mu.Unlock()
		if first {
			e.kickOutbox()
		}
		return false, err
	}
	e.idx.lost = nil
	use := e.idx.setRebuiltIndex(ix)
	note := "lexical index directory was missing; rebuilding"
	if q != "" {
		note = "lexical index was damaged (quarantined to " + q + "); rebuilding"
	}
	e.idx.setNote(note)
	e.idx.mu.Unlock()
	path := filepath.Join(e.dir, LexicalDir)
	if q != "" {
		e.log.Warn("lexical index damaged: quarantined, rebuilding from the store", "quarantine", q, "err", cause)
		e.publish(Event{Reason: EventQuarantined, Path: q, Detail: cause.Error()})
	} else {
		e.log.Warn("lexical index directory missing: rebuilding from the store", "path", path, "err", cause)
	}

	e.idx.beforeQueueing()
	stored, err := e.ms.ReplaceIndexQueue(ctx, e.now())
	if err != nil {
		return true, fmt.Errorf("engine: queue rebuild after quarantine: %w", err)
	}
	use.unqueued.Store(false)
	detail := "rebuilding the missing lexical index from the store"
	if q != "" {
		detail = "rebuilding the quarantined lexical index from the store"
	}
	e.publish(Event{Reason: EventRebuild, Count: int(stored), Path: path, Detail: detail})
	e.kickOutbox()
	return true, nil
}

// takeDamaged closes the open lexical index when it is damaged, once the
// searches running on it have left, and returns its damage; or, when a
// recovery closed the index and could not open a new one (lostIndex),
// that damage again, for the caller to retry. Nil when there is nothing
// to recover. The caller holds e.idx.mu.
func (e *Engine) takeDamaged(ctx context.Context) (error, error) {
	old := e.idx.ix
	if old == nil {
		if e.idx.lost == nil {
			return nil, nil
		}
		return e.idx.lost.cause, nil
	}
	cause := old.Lexical().Damaged()
	if cause == nil {
		return nil, nil
	}
	if err := e.idx.awaitIdle(ctx); err != nil {
		return nil, err
	}
	e.idx.setIndex(nil)
	if err := old.Close(); err != nil {
		e.log.Warn("closing the damaged lexical index", "err", err)
	}
	return cause, nil
}

// reopenLexical quarantines the lexical index directory, damaged by
// cause, and opens a fresh, empty index in its place; it returns the
// index and the quarantine path ("" when the directory was gone: removed
// under the engine, or quarantined by a recovery whose reopening failed).
// The caller holds e.idx.mu.
func (e *Engine) reopenLexical(cause error) (*recall.Index, string, error) {
	path := filepath.Join(e.dir, LexicalDir)
	var q string
	if _, err := os.Lstat(e.blockingPath(path)); !errors.Is(err, fs.ErrNotExist) {
		if q, err = e.quarantine(path); err != nil {
			return nil, "", fmt.Errorf("engine: quarantine damaged %s: %w (damage: %v)", path, err, cause)
		}
		e.idx.quarantined = q
	}
	if err := e.idx.beforeReopen(); err != nil {
		return nil, q, fmt.Errorf("engine: reopen lexical index after quarantine: %w", err)
	}
	lex, err := recall.OpenLexical(path)
	if err != nil {
		return nil, q, fmt.Errorf("engine: reopen lexical index after quarantine: %w", diskFull(e.dir, err))
	}
	ix, err := e.newIndex(lex)
	if err != nil {
		lex.Close()
		return nil, q, fmt.Errorf("engine: %w", err)
	}
	return ix, q, nil
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

// newIndex is the engine's recall.Index over lex, whose damage, once found,
// wakes the drainer (lexicalDamaged).
func (e *Engine) newIndex(lex *recall.Lexical) (*recall.Index, error) {
	ix, err := recall.NewIndex(e.recallConfig(lex))
	if err != nil {
		return nil, err
	}
	lex.OnDamage(e.lexicalDamaged)
	e.watchIndexSpace(lex) // index_space.go
	return ix, nil
}

// lexicalDamaged is the open lexical index's recall.Lexical.OnDamage: it
// wakes the drainer, whose next drain quarantines the index and rebuilds
// it (recoverIfDamaged). Damage found by scorch's merger or persister in
// the background, after the drain that gave them their work had ended,
// waited for the next append before (an idle mnemo serve kept a damaged
// index, searches failing on it, until traffic came). It runs in the
// goroutine that found the damage and never blocks.
func (e *Engine) lexicalDamaged(err error) {
	e.log.Warn("lexical index found damaged: quarantining and rebuilding it from the store", "err", err)
	e.kickOutbox()
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
