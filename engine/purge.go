package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// The resumable physical purge of erasures (erase.go runs the erasure
// transaction): index removal, bleve merge, WAL checkpoint, residue check.
// An erasure marker (journal.ScopeErasing) written by the transaction
// stays until the purge finished, so Open completes a purge a crash cut
// short (resumeErasures).

// purgeSet is what a physical purge owes: the markers of the erasures
// whose transactions committed (each stays in the journal until a purge
// covering it finished), what the residue check looks for (the prefixes of
// their erased texts and ids, bounded: residue.go), whether one of them
// erased a thread or a resource (owners: the indexes that hold a piece of
// an erased id are rebuilt) and the ids of those (ids: purge_indexes.go).
// all is the purge at Open, which owes every stored marker and no longer
// knows their texts and ids.
type purgeSet struct {
	markers []string
	residue residue
	owners  bool
	ids     ownerIDs
	all     bool
}

// add makes p owe q's purge too.
func (p *purgeSet) add(q purgeSet) {
	p.markers = append(p.markers, q.markers...)
	p.residue.merge(q.residue)
	p.owners = p.owners || q.owners
	p.ids.merge(q.ids)
	p.all = p.all || q.all
}

// owe keeps p, a purge that did not finish, for the next one to complete
// (adoptOwed): a failed or cancelled purge is finished by the next erasure
// of this engine that erases something, or at the latest by Open (its
// markers stay stored).
func (e *Engine) owe(p purgeSet) {
	if p.all || len(p.markers) == 0 {
		return
	}
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	e.erasure.owed.add(p)
}

// adoptOwed returns p with the purges owed by earlier erasures added.
func (e *Engine) adoptOwed(p purgeSet) purgeSet {
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	p.add(e.erasure.owed)
	e.erasure.owed = purgeSet{}
	return p
}

// completeOwed completes the purges earlier erasures left owed (owe), and
// reports whether there were any. It fails with ErrEraseIncomplete, the
// purges still owed.
//
// It first waits for the purges under way (until ctx ends): the same
// erasure asked again while the first one's purge runs found nothing to
// erase and answered at once, purge done, with the erased text still in
// the files; now it answers when that purge finished, or completes it
// when it failed.
func (e *Engine) completeOwed(ctx context.Context) (bool, error) {
	if err := e.awaitPurges(ctx); err != nil {
		return false, fmt.Errorf("%w: waiting for the purge under way: %w", ErrEraseIncomplete, err)
	}
	e.erasure.mu.Lock()
	owed := len(e.erasure.owed.markers)
	e.erasure.mu.Unlock()
	if owed == 0 {
		return false, nil
	}
	if _, err := e.completeErasures(ctx, purgeSet{}); err != nil {
		if !errors.Is(err, ErrEraseIncomplete) {
			err = fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
		}
		return true, err
	}
	e.log.Info("erasure: completed the physical purge of earlier erasures", "erasures", owed)
	return true, nil
}

// completeErasures does the physical part of the erasures of p (and of
// those whose purge an earlier call left owed, adoptOwed), whose
// transactions committed: index removal (the outbox delete rows), the bleve
// merge, the removal of quarantined index copies, and a truncating WAL
// checkpoint; then it deletes their markers (every marker when p.all). One
// call serves any number of erasures: a lifecycle sweep (sweep.go) purges
// once for all the threads it erased. When it fails, p stays owed.
//
// SQLite's secure_delete zeroes deleted cells, but a copy of a cell that a
// b-tree rebalance moved earlier can survive in a page's free space (the
// crash harness found one in about 1,500 kill points). So the database file
// is then searched for the erased texts (p.residue; after a crash they are
// no longer known, and Open vacuums unconditionally; past
// residueMaxPatterns texts the purge vacuums without searching) and
// rewritten with VACUUM when any remains. Such copies are most frequent in
// index pages (their keys are inserted in any order, so their pages split
// again and again), where the residue check cannot see a piece of an id:
// when p.owners is set (an erasure deleted a thread or a resource, whose
// ids are index keys) the indexes whose pages hold a piece of an erased id
// are rebuilt first (clearIndexes; every index when the ids are not
// known), which frees
// and zeroes their old pages.
func (e *Engine) completeErasures(ctx context.Context, p purgeSet) (Vacuum, error) {
	e.purgeStarted()
	defer e.purgeEnded()
	p = e.adoptOwed(p)
	why, err := e.purge(ctx, p)
	if err != nil {
		e.owe(p)
	}
	return why, err
}

// purge is completeErasures without the owed purges; it returns why it
// vacuumed the file ("" when it did not).
func (e *Engine) purge(ctx context.Context, p purgeSet) (Vacuum, error) {
	e.erasure.purges.Add(1)
	if e.onPostgres() {
		// The transaction removed everything: vectors and lexical entries
		// went with the rows (cascade). Reclaiming the dead tuples is
		// VACUUM's, an operator's command.
		return "", e.clearMarkers(ctx, p)
	}
	if err := e.purgeIndexes(ctx); err != nil {
		return "", err
	}
	if p.owners {
		// The erased owners' ids are keys of most indexes; rebuild those
		// that hold a piece of one (every index when the ids are no
		// longer known), so no page keeps a piece of one in its unused
		// space.
		ids := p.ids
		ids.over = ids.over || p.all
		if err := e.clearIndexes(ctx, ids); err != nil {
			return "", err
		}
	}
	if err := e.checkpoint(ctx); err != nil {
		return "", err
	}
	why, err := e.vacuumResidue(ctx, p.all, p.residue)
	if err != nil {
		return why, err
	}
	if err := e.clearMarkers(ctx, p); err != nil {
		return why, err
	}
	return why, e.checkpoint(ctx)
}

// purgeIndexes applies the outbox's delete rows, merges the lexical
// index's segments and removes quarantined index copies.
func (e *Engine) purgeIndexes(ctx context.Context) error {
	last, err := e.drainDeletes(ctx)
	if err != nil {
		return fmt.Errorf("%w: index removal: %w", ErrEraseIncomplete, err)
	}
	hook(&e.erasure.drained)
	// Only the rows that failed count: a row up to last still due is an
	// erasure's committed since the drain read none (on SQLite it may take
	// the id of a row drained here), which applies and checks its own
	// (TestConcurrentErasuresComplete, TestErasureDrainReusedIDs).
	pending, err := e.ms.DeferredDeletes(ctx, last)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
	}
	if pending > 0 {
		return fmt.Errorf("%w: %d index removals deferred after failures", ErrEraseIncomplete, pending)
	}
	if err := e.purgeLexical(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
	}
	if err := os.RemoveAll(filepath.Join(e.dir, QuarantineDir)); err != nil {
		return fmt.Errorf("%w: remove quarantined indexes: %w", ErrEraseIncomplete, err)
	}
	return nil
}

// clearMarkers deletes the markers p completed: exactly its own, so a
// concurrent erasure's marker stays until that erasure's purge finished.
func (e *Engine) clearMarkers(ctx context.Context, p purgeSet) error {
	var err error
	if p.all {
		err = e.journal.ClearErasing(ctx, "")
	} else {
		err = e.journal.ClearErasings(ctx, p.markers)
	}
	if err != nil {
		return fmt.Errorf("%w: clear markers: %w", ErrEraseIncomplete, err)
	}
	return nil
}

// purgeLexical merges the lexical index's segments so no file keeps an
// erased document; a damaged index goes to quarantine instead (removed by
// the caller) and is rebuilt from SQLite, which holds nothing erased
// (lexical_damage.go). The merge counts as a use of the index
// (indexuse.go), so Close waits for it (at most CloseDrainWait) before it
// closes the index.
//
// Waiting for the drain lock (the background drainer's batch, which may
// wait minutes for a stalled embedding endpoint) honours ctx, as
// drainDeletes' does.
func (e *Engine) purgeLexical(ctx context.Context) error {
	if err := e.idx.drainMu.LockCtx(ctx); err != nil {
		return err
	}
	defer e.idx.drainMu.Unlock()
	var err error
	if ix, use := e.idx.acquire(); ix != nil {
		hook(&e.idx.beforePurge)
		err = ix.Lexical().Purge(ctx)
		use.release() // before the recovery, which waits for the index's uses
	}
	if isDamage(err) {
		_, err = e.recoverDamagedIndex(ctx)
	}
	return err
}

// drainDeletes applies the outbox's delete rows queued before the call,
// ahead of the index rows before them (an index row of an erased message is
// a no-op whenever it runs; one the drainer already holds finishes before
// drainMu is ours, and its document is removed here). It does not wait for
// the backlog of index rows that concurrent appends keep adding, so an
// erasure under load finishes. It returns the id of the last delete row it
// was to apply (0 when there was none). Waiting for the drain lock
// honours ctx: the drainer's batch may wait minutes for its embedder (an
// endpoint that stalls), and an erasure, or an Append that evicts, waited
// that long past its deadline (TestErasureHonoursContextWhileDraining).
func (e *Engine) drainDeletes(ctx context.Context) (int64, error) {
	last, ok, err := e.ms.LastDelete(ctx)
	if err != nil || !ok {
		return 0, err
	}
	for {
		if err := e.idx.drainMu.LockCtx(ctx); err != nil {
			return last, err
		}
		err := e.recoverIfDamaged(ctx) // lexical_damage.go
		var rows []msgstore.OutboxRow
		if err == nil {
			rows, err = e.dueDeletes(ctx, last)
		}
		if err == nil && len(rows) > 0 {
			err = e.applyOutbox(ctx, rows)
		}
		e.idx.drainMu.Unlock()
		if err != nil || len(rows) == 0 {
			return last, err
		}
	}
}

// dueDeletes reads up to outboxBatch delete rows up to last whose
// backoff has passed.
func (e *Engine) dueDeletes(ctx context.Context, last int64) ([]msgstore.OutboxRow, error) {
	due, err := e.ms.DueDeletes(ctx, last, time.Now(), outboxBatch)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return due, nil
}

// clearResidue takes r's prefixes out of the database file's free space
// without rewriting the file, and reports whether it could: it finds the
// pages that hold one in their free space (pagesHolding, a read of the
// file; store.MayHoldInFree on each page that holds one) and has
// store.ClearFreeSpace zero their free space, then checkpoints so the
// zeroed pages reach the file. A page whose live rows alone hold a prefix
// is left as it is, unread by SQLite: a stored message (or run id, or
// other row) holds the same bytes, which no purge takes out, and VACUUM
// keeps (it vacuumed for them every time before: BENCHMARKS.md, vac64). It reports false, having
// changed nothing the file needs, when a match straddles two pages or lies
// in a page whose free bytes it cannot tell (a free-list trunk, an
// overflow page no live cell's chain reaches, ...:
// store.FreeSpace.Unresolved), or when the file is known damaged
// (store.Damaged, store.DamageMarked), whose page headers it does not
// trust: only VACUUM takes those out. A match in a page that is no
// b-tree page (an overflow page: a long row's end, where its metadata
// and tool calls lie) has a second read of the file find the cell whose
// chain runs through it (store.OverflowOwners), which ClearFreeSpace
// checks through SQLite: the chain's payload is a live row's, left as a
// live cell is; the last page's tail past it is free space, zeroed. An
// erased row's own overflow pages were freed, so secure_delete zeroed
// them or they are free-list leaves, zeroed whole. The pages whose live
// rows hold a prefix are counted (noteLive).
func (e *Engine) clearResidue(ctx context.Context, r residue) (bool, error) {
	pats := r.all(nil)
	if len(pats) == 0 {
		return true, nil
	}
	pageSize, err := store.PageSize(ctx, e.db)
	if err != nil {
		return false, err
	}
	holds := containsAny(pats)
	live := 0         // pages whose live rows alone hold one
	var other []int64 // pages that are no b-tree page (overflow pages, mostly)
	mayHold := func(pg int64, page []byte) bool {
		if !store.BtreePage(pg, page) {
			other = append(other, pg)
			return true
		}
		if store.MayHoldInFree(pg, page, holds) {
			return true
		}
		live++
		return false
	}
	path := filepath.Join(e.dir, DatabaseFile)
	pages, straddles, err := pagesHolding(ctx, path, pageSize, pats, mayHold)
	defer func() { e.noteLive(live) }()
	if err != nil || straddles || len(pages) == 0 {
		return !straddles, err
	}
	if store.Damaged(e.db) || store.DamageMarked(e.db) != nil {
		// A damaged page's header may be wrong (a cell count garbled
		// lower puts live cell pointers in what it calls free space):
		// zeroing by it could destroy rows salvage would keep. VACUUM,
		// which reads rows through SQLite, is the fallback, as before
		// vac64 (rev65 finding 2).
		return false, nil
	}
	var owners map[int64]store.OverflowOwner
	if len(other) > 0 {
		// A live long row's end: another read of the file finds the
		// cells whose chains run through them (store.OverflowOwners),
		// which ClearFreeSpace follows through SQLite to tell the
		// chain's payload from the last page's unused tail.
		if owners, err = store.OverflowOwners(ctx, path, pageSize, other); err != nil {
			return false, err
		}
	}
	fs, err := store.ClearFreeSpace(ctx, e.db, pages, holds, owners)
	if err != nil {
		return false, err
	}
	e.erasure.cleared.Add(int64(len(fs.Cleared)))
	live += len(fs.Live)
	if len(fs.Cleared) > 0 {
		e.log.Info("erasure: zeroed leftover copies of erased text in free space", "pages", len(fs.Cleared))
	}
	if len(fs.Unresolved) > 0 {
		return false, nil
	}
	return true, e.checkpoint(ctx)
}

// noteLive counts and logs the pages the residue check found holding an
// erased prefix in live rows: another row holding the same bytes (a
// quote), or a copy an erasure should have deleted and did not, which
// the check leaves (rev65 #1: such a copy was no longer seen).
func (e *Engine) noteLive(pages int) {
	if pages == 0 {
		return
	}
	e.erasure.live.Add(int64(pages))
	e.log.Info("erasure: pages still hold the start of an erased text or id in live rows (another row holds the same bytes); left as they are", "pages", pages)
}

// vacuumResidue rewrites the database with VACUUM when always is set,
// when r is over its bound (residue.over), or when the file holds one of
// r's prefixes outside live rows where clearResidue cannot zero it; then
// it checkpoints. Either way, when it returns nil the file holds none of
// r's prefixes but in live rows (residue's guarantee). A free list that
// does not hold together (store.ErrFreeListDamaged) makes it vacuum
// (VacuumResidue), and when VACUUM fails too, its error matches
// ErrDatabaseCorrupt. It returns why it vacuumed (VacuumTextsUnknown,
// VacuumTooLarge, VacuumResidue), "" when it did not.
func (e *Engine) vacuumResidue(ctx context.Context, always bool, r residue) (Vacuum, error) {
	var why Vacuum
	var damaged error // clearResidue's store.ErrFreeListDamaged
	switch {
	case always:
		why = VacuumTextsUnknown
	case r.over:
		why = VacuumTooLarge
		e.log.Info("erasure too large to search the database file for its texts; vacuuming", "texts", r.texts)
	default:
		cleared, err := e.clearResidue(ctx, r)
		switch {
		case errors.Is(err, store.ErrFreeListDamaged):
			// No page can be told free or live by a damaged free list;
			// VACUUM does not read it (rev65 #4: each retry failed here).
			damaged = err
			e.log.Warn("the database file's free list is damaged; vacuuming it to take an erased text out", "err", err)
		case err != nil:
			return "", fmt.Errorf("%w: residue check: %w", ErrEraseIncomplete, err)
		case cleared:
			return "", nil
		default:
			e.log.Warn("the database file still holds the start of an erased text where it cannot be zeroed in place (a free-list trunk, an overflow page no live row's chain reaches, or across two pages); vacuuming")
		}
		why = VacuumResidue
	}
	e.erasure.vacuums.Add(1)
	if err := store.Vacuum(ctx, e.db); err != nil {
		if damaged != nil {
			// Both match ErrDatabaseCorrupt: the CLI gives its advice
			// for a damaged file.
			return why, fmt.Errorf("%w: vacuum: %w (after %w)", ErrEraseIncomplete, err, damaged)
		}
		return why, fmt.Errorf("%w: vacuum: %w", ErrEraseIncomplete, err)
	}
	return why, e.checkpoint(ctx)
}

// checkpoint copies the WAL into the database file and truncates it, so
// page images written before an erasure leave the WAL. A reader holding an
// old snapshot, or another process holding the write lock, makes SQLite
// report busy (after its busy timeout); it is retried for up to 10 s.
func (e *Engine) checkpoint(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		busy, logFrames, done, err := store.Checkpoint(ctx, e.db)
		if err != nil {
			return fmt.Errorf("%w: WAL checkpoint: %w", ErrEraseIncomplete, err)
		}
		if busy == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: WAL checkpoint still blocked by readers or by another process's write lock (%d of %d frames copied)", ErrEraseIncomplete, done, logFrames)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrEraseIncomplete, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// resumeErasures completes, at Open, the erasures a crash interrupted
// after their transaction committed.
func (e *Engine) resumeErasures(ctx context.Context) error {
	n, err := e.journal.Erasing(ctx)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if n == 0 {
		return nil
	}
	e.log.Warn("completing interrupted erasures", "n", n)
	if _, err := e.completeErasures(ctx, purgeSet{all: true}); err != nil {
		return fmt.Errorf("engine: complete interrupted erasures: %w", err)
	}
	e.publish(Event{Reason: EventEraseResumed, Count: n, Detail: "erasures interrupted by a crash were completed at open"})
	return nil
}

// purgeStarted counts a purge under way (completeErasures).
func (e *Engine) purgeStarted() {
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	if e.erasure.running == 0 {
		e.erasure.idle = make(chan struct{})
	}
	e.erasure.running++
}

// purgeEnded counts a purge done, failed or not (after owe).
func (e *Engine) purgeEnded() {
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	if e.erasure.running--; e.erasure.running == 0 {
		close(e.erasure.idle)
	}
}

// awaitPurges returns when no purge is under way, or ctx's error when it
// ends first.
func (e *Engine) awaitPurges(ctx context.Context) error {
	e.erasure.mu.Lock()
	if e.erasure.running == 0 {
		e.erasure.mu.Unlock()
		return nil
	}
	idle := e.erasure.idle
	e.erasure.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
