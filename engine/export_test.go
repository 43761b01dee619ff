package engine

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// FileHolds exposes fileHolds to the black-box tests.
func FileHolds(path string, pats [][]byte) (bool, error) {
	return fileHolds(context.Background(), path, pats)
}

// FileHoldsCtx is fileHolds with the caller's context.
var FileHoldsCtx = fileHolds

// BackgroundObserverStarted reports whether the background observer's
// goroutine was started (for TestCloseRacesBackgroundObserver): Open
// starts it when ObserveConfig.Background is set with a model.
func (e *Engine) BackgroundObserverStarted() bool { return e.obs.queue != nil }

// HoldDrain takes the drain lock as the background drainer does while it
// indexes a batch, until release is called.
func (e *Engine) HoldDrain() (release func()) {
	e.idx.drainMu.Lock()
	return e.idx.drainMu.Unlock
}

// ObserveHolders reports how many observer runs hold threadID's fence key
// (fence.go): an erasure of the thread cancels each of them, whatever it
// waits for.
func ObserveHolders(e *Engine, threadID string) int {
	f := &e.erasure.fence
	f.mu.Lock()
	defer f.mu.Unlock()
	if k := f.keys[threadKey(threadID)]; k != nil {
		return k.holders
	}
	return 0
}

// LexicalSegmentFiles lists the segment files the lexical index reads now.
func (e *Engine) LexicalSegmentFiles(ctx context.Context) ([]string, error) {
	return e.idx.index().Lexical().SegmentFiles(ctx)
}

// PurgeLexical merges the lexical index into one segment file and waits
// until the older files are gone (recall.Lexical.Purge).
func (e *Engine) PurgeLexical(ctx context.Context) error {
	e.idx.drainMu.Lock()
	defer e.idx.drainMu.Unlock()
	return e.idx.index().Lexical().Purge(ctx)
}

// DBOf returns the engine's SQLite pool, for the black-box tests that
// inspect or damage the stored rows directly (the engine exports no DB).
func DBOf(e *Engine) *sql.DB { return e.db }

// ConnOf returns the engine's pool with every statement rebound to its
// database's dialect (store.Bound): the conformance tests write their raw
// statements once, in SQLite's text with ? placeholders, and run them on
// either backend.
func ConnOf(e *Engine) store.Conn { return store.Bound(e.db) }

// TextReads returns how many reads of erased texts the engine's erasure
// transactions made (journal.Erased.Texts), for the tests that check the
// checks share one read.
func TextReads(e *Engine) int64 { return e.erasure.reads.Load() }

// Purges returns how many physical purges of erasures the engine started
// (completeErasures), for the tests that check a sweep purges once.
func Purges(e *Engine) int64 { return e.erasure.purges.Load() }

// ClearedPages reports how many pages' free space the purges zeroed
// (clearResidue).
func ClearedPages(e *Engine) int64 { return e.erasure.cleared.Load() }

// LivePages reports how many pages the purges' residue checks found
// holding an erased prefix in live rows (noteLive).
func LivePages(e *Engine) int64 { return e.erasure.live.Load() }

// MessagesToIndex exposes the drainer's read of the messages it indexes
// (messagesToIndex: the rows appends handed over, the others read).
func (e *Engine) MessagesToIndex(ctx context.Context, ids []string) ([]Message, error) {
	msgs, _, err := e.messagesToIndex(ctx, ids)
	return msgs, err
}

// FreshHeld reports whether the drainer's cache of appended rows holds id
// (fresh.go).
func FreshHeld(e *Engine, id string) bool {
	e.idx.fresh.mu.Lock()
	defer e.idx.fresh.mu.Unlock()
	_, ok := e.idx.fresh.rows[id]
	return ok
}

// DocText is the text the drainer gives the embedder for m (docOf).
func DocText(m Message) string {
	d := docOf(&m)
	return d.Text()
}

// SetSalvageSwapHook sets salvageSwapHook (salvage_swap.go) until restore
// is called.
func SetSalvageSwapHook(f func(step string) error) (restore func()) {
	salvageSwapHook = f
	return func() { salvageSwapHook = nil }
}

// SetBackupStagedHook sets backupStagedHook (backup_staging.go) until
// restore is called.
func SetBackupStagedHook(f func(staging string)) (restore func()) {
	backupStagedHook = f
	return func() { backupStagedHook = nil }
}

// wholeSource is the engine's Source without its pages: the observer
// reads from it every turn at once.
type wholeSource struct{ s engineSource }

func (w wholeSource) Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]observe.Turn, error) {
	return w.s.Messages(ctx, threadID, fromSeq, toSeq)
}

// PlansPagedAndWhole returns the observer's plan of threadID (with the
// engine's observation config and model m) read through the engine's
// Source a page at a time, and read at once.
func (e *Engine) PlansPagedAndWhole(ctx context.Context, threadID string, m observe.Model) (paged, whole *observe.Plan, err error) {
	c := e.cfg.Observe
	for i, src := range []observe.Source{engineSource{e}, wholeSource{engineSource{e}}} {
		o, err := observe.New(observe.Config{DB: e.db, Journal: e.journal, Source: src, Model: m,
			Threshold: c.Threshold, ChunkTokens: c.ChunkTokens, RecentN: e.cfg.RecentN})
		if err != nil {
			return nil, nil, err
		}
		p, err := o.Plan(ctx, threadID)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			paged = p
		} else {
			whole = p
		}
	}
	return paged, whole, nil
}

// LiveObservations is liveObservations: the live observations LoadContext
// renders for threadID of resourceID, in their order.
func (e *Engine) LiveObservations(ctx context.Context, threadID, resourceID string) ([]observe.Observation, error) {
	return e.liveObservations(ctx, threadID, resourceID)
}

// ResidueMaxPatterns is residueMaxPatterns, the texts the residue check
// searches for before it vacuums instead.
const ResidueMaxPatterns = residueMaxPatterns

// CheckResidue runs a purge's residue check (vacuumResidue) for texts as
// if an erasure had erased them, and reports why it vacuumed ("" when it
// did not).
func CheckResidue(ctx context.Context, e *Engine, texts []string) (Vacuum, error) {
	if err := e.checkpoint(ctx); err != nil { // as the purge does before the check
		return "", err
	}
	var r residue
	r.add(texts...)
	before := e.erasure.vacuums.Load()
	why, err := e.vacuumResidue(ctx, false, r)
	if (why != "") != (e.erasure.vacuums.Load() > before) {
		return why, fmt.Errorf("vacuumResidue said %q, but ran %d VACUUMs", why, e.erasure.vacuums.Load()-before)
	}
	return why, err
}

// PreviewPrefixChars exposes previewPrefixChars: the characters of a
// message SearchPreviews reads.
const PreviewPrefixChars = previewPrefixChars

// PreviewCallsChars exposes previewCallsChars: the characters of a
// message's stored tool calls SearchPreviews reads.
const PreviewCallsChars = previewCallsChars

// SetBeforeIndexRead makes the drainer call f after it took a batch and
// before it reads the batch's messages (indexRows; embedRowsOnce on
// Postgres), until the engine is closed; nil removes it.
func SetBeforeIndexRead(e *Engine, f func()) {
	if f == nil {
		e.idx.beforeRead.Store(nil)
		return
	}
	e.idx.beforeRead.Store(&f)
}

// SetAfterReindexQueue makes Reindex call f after it queued the messages
// to index or embed again (with reembed, after their vectors were
// dropped) and before it drains the outbox; nil removes it.
func SetAfterReindexQueue(e *Engine, f func()) {
	if f == nil {
		e.idx.queued.Store(nil)
		return
	}
	e.idx.queued.Store(&f)
}

// SetBeforeIndexSearch makes a search on SQLite call f after it took the
// recall index it runs on and before it searches it; nil removes it.
func SetBeforeIndexSearch(e *Engine, f func()) {
	if f == nil {
		e.idx.beforeSearch.Store(nil)
		return
	}
	e.idx.beforeSearch.Store(&f)
}

// SetBeforeIndexPurge makes an erasure's purge on SQLite call f after it
// took the recall index and before it merges its segments; nil removes it.
func SetBeforeIndexPurge(e *Engine, f func()) {
	if f == nil {
		e.idx.beforePurge.Store(nil)
		return
	}
	e.idx.beforePurge.Store(&f)
}

// SetBeforeRebuildQueue makes Reindex and the damage recovery on SQLite
// call f once the new, empty index is open for searches and before they
// queue its messages; nil removes it.
func SetBeforeRebuildQueue(e *Engine, f func()) {
	if f == nil {
		e.idx.rebuilt.Store(nil)
		return
	}
	e.idx.rebuilt.Store(&f)
}

// SetAfterReindexSwap makes Reindex on SQLite call f once its new, empty
// index is set and before it drops the stored embeddings (reembed) and the
// outbox's rows; nil removes it.
func SetAfterReindexSwap(e *Engine, f func()) {
	if f == nil {
		e.idx.swapped.Store(nil)
		return
	}
	e.idx.swapped.Store(&f)
}

// IndexLockFree reports whether the recall index's lock (indexState.mu)
// is free: no Reindex, damage recovery or Close holds it.
func IndexLockFree(e *Engine) bool {
	if !e.idx.mu.TryLock() {
		return false
	}
	e.idx.mu.Unlock()
	return true
}

// Reindexed returns the indexes the engine's last physical purge rebuilt
// after the erasure of a thread or resource ("*": every index; empty:
// none held a piece of an erased id).
func Reindexed(e *Engine) []string {
	e.erasure.mu.Lock()
	defer e.erasure.mu.Unlock()
	return append([]string{}, e.erasure.reindexed...)
}

// SetAfterRunCheck makes a run's working-memory write call f after its
// in-flight check (journal.CheckRunContext) and before its statements,
// inside its transaction; nil removes it.
func SetAfterRunCheck(e *Engine, f func()) {
	if f == nil {
		e.wm.checked.Store(nil)
		return
	}
	e.wm.checked.Store(&f)
}

// SetBeforeIndexReopen makes the damage recovery call f before it opens
// the new lexical index; f's error fails that attempt as a failed open
// would. nil removes it.
func SetBeforeIndexReopen(e *Engine, f func() error) {
	if f == nil {
		e.idx.reopen.Store(nil)
		return
	}
	e.idx.reopen.Store(&f)
}

// SetAfterDeleteDrain makes an erasure's purge on SQLite call f once it
// drained the outbox's delete rows, before it counts those deferred; nil
// removes it.
func SetAfterDeleteDrain(e *Engine, f func()) {
	if f == nil {
		e.erasure.drained.Store(nil)
		return
	}
	e.erasure.drained.Store(&f)
}

// SetBeforeMemCtx makes LoadContext call f once its context is composed,
// before the transaction that stores its memctx record; nil removes it.
func SetBeforeMemCtx(e *Engine, f func()) {
	if f == nil {
		e.erasure.composed.Store(nil)
		return
	}
	e.erasure.composed.Store(&f)
}

// SetAfterAppendCommit makes Append call f once its transaction
// committed, before the quota's evictions; nil removes it.
func SetAfterAppendCommit(e *Engine, f func()) {
	if f == nil {
		e.erasure.appended.Store(nil)
		return
	}
	e.erasure.appended.Store(&f)
}

// SetAfterEraseGuard makes a guarded erasure (expiry, quota eviction) call
// f once its guard passed, inside its transaction, before its erasure's
// statements; nil removes it.
func SetAfterEraseGuard(e *Engine, f func()) {
	if f == nil {
		e.erasure.guarded.Store(nil)
		return
	}
	e.erasure.guarded.Store(&f)
}

// SetAfterSettleCheck makes SettleDispatch call f once its checks in the
// append's transaction passed, before the append's statements; nil
// removes it.
func SetAfterSettleCheck(e *Engine, f func()) {
	if f == nil {
		e.erasure.settling.Store(nil)
		return
	}
	e.erasure.settling.Store(&f)
}

// SettlementMessageID is the id of the tool message SettleDispatch stores
// for the call callID of run runID.
func SettlementMessageID(runID, callID string) string {
	return derivedID("dispatch-result-", runID, callID)
}

// IndexLexical indexes docs in the open lexical index directly, as a
// drain's batch does but with no outbox row and no kick of the drainer
// (the caller holds the drain: HoldDrain).
func IndexLexical(e *Engine, docs []recall.Doc) error {
	return e.idx.index().Lexical().Index(docs)
}

// LexicalDamaged returns the open lexical index's damage
// (recall.Lexical.Damaged; nil when healthy or when no index is open).
func LexicalDamaged(e *Engine) error {
	ix := e.idx.index()
	if ix == nil {
		return nil
	}
	return ix.Lexical().Damaged()
}

// SetVacuumedHook sets the function Vacuum calls on SQLite between its
// VACUUM and its WAL checkpoint, until restore is called.
func SetVacuumedHook(f func()) (restore func()) {
	vacuumedHook = f
	return func() { vacuumedHook = nil }
}

// LexicalCount returns how many documents the open lexical index holds,
// those only in memory included (recall.Lexical.Count).
func LexicalCount(e *Engine) (uint64, error) {
	return e.idx.index().Lexical().Count()
}

// IndexRefused is the open lexical index's refusal for lack of room
// (recall.Lexical.Refused).
func IndexRefused(e *Engine) (time.Time, error) {
	return e.idx.index().Lexical().Refused()
}

// SetOutboxClock makes f the clock of the outbox's claims on Postgres and
// of SyncIndexes' count of the rows other drainers hold there; nil gives
// back time.Now.
func SetOutboxClock(e *Engine, f func() time.Time) {
	if f == nil {
		e.idx.clock.Store(nil)
		return
	}
	e.idx.clock.Store(&f)
}

// SetAfterSyncDrain makes SyncIndexes on Postgres call f after each of
// its drains and before it counts the rows other drainers hold; nil
// removes it.
func SetAfterSyncDrain(e *Engine, f func()) {
	if f == nil {
		e.idx.synced.Store(nil)
		return
	}
	e.idx.synced.Store(&f)
}
