package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// Journal scopes written by erasure (table journal; no content is ever
// stored under them, only ids and seqs).
const (
	// ScopeErasing holds one marker per erasure whose transaction committed
	// and whose physical purge (index removal, segment merge, WAL
	// checkpoint) has not finished; Open completes them.
	ScopeErasing = journal.ScopeErasing
	// ScopeErased holds one tombstone per erased seq, keyed
	// "<threadId>:<seq>", so Check can tell an erased seq from a gap.
	ScopeErased = journal.ScopeErased
)

// ErasedPreview replaces the preview of an erased turn in memctx records
// (the reference itself stays, so replay reports the turn as erased).
const ErasedPreview = journal.ErasedPreview

// EraseResult reports what an erasure removed and invalidated.
type EraseResult struct {
	// Messages are the ids of the messages erased.
	Messages []string `json:"messages"`
	// NotFound are requested message ids that were not stored (an erasure
	// is idempotent: erasing again reports them here).
	NotFound []string `json:"notFound,omitempty"`
	// Threads are the threads deleted (DeleteThread, DeleteResource).
	Threads []string `json:"threads,omitempty"`
	// Invalidated are the observations and reflections invalidated.
	Invalidated []string `json:"invalidated,omitempty"`
	// MemCtxScrubbed counts memctx records whose previews were scrubbed.
	MemCtxScrubbed int `json:"memctxScrubbed"`
	// Runs counts the runs of deleted threads whose memctx records were
	// deleted: an erased thread leaves no run listing (the run ids stay
	// claimed, by an opaque tombstone, so nobody else takes them over).
	Runs int `json:"runs"`
	// WorkingMemory counts working-memory states deleted (current states
	// and history versions).
	WorkingMemory int `json:"workingMemory"`
	// WorkingMemoryInvalidated counts the working-memory versions removed
	// because the run that wrote them saw an erased turn (in its recent
	// window, its recalled turns, its query, an observation the erasure
	// invalidated, or the erased call itself), or because their change no
	// longer applies without them; the states of the erased turns'
	// resources are rebuilt from the remaining versions (working.Rebuild).
	WorkingMemoryInvalidated int `json:"workingMemoryInvalidated"`
	// Embeddings counts stored embeddings deleted.
	Embeddings int `json:"embeddings"`
	// Purge is how long the physical purge took (index removal, bleve
	// segment merge, index rebuild, WAL checkpoint, and a VACUUM when
	// needed).
	Purge time.Duration `json:"purgeNanos"`
	// IndexesRebuilt is set when the purge cleared the SQLite file's
	// indexes of the erased ids, as it does after deleting a thread or a
	// resource: a page split leaves copies of index keys (thread and
	// resource ids) in the unused space of index pages, which
	// secure_delete does not reach, so the purge reads every index page
	// and rebuilds (REINDEX) each index whose pages hold a piece of an
	// erased thread's or resource's id (half the id, 6 bytes at least),
	// which frees and zeroes its pages; every index when the ids are not
	// known. It rebuilt every index before, at the cost of the whole
	// file. Never set on Postgres.
	IndexesRebuilt bool `json:"indexesRebuilt,omitempty"`
	// Vacuumed says why the purge rewrote the SQLite file with VACUUM
	// (VacuumResidue, VacuumTooLarge, VacuumTextsUnknown), which makes it
	// take about as long as a `mnemo vacuum`; "" when it did not. Never
	// set on Postgres. The erasures of one sweep share their purge, and
	// so this.
	Vacuumed Vacuum `json:"vacuumed,omitempty"`
	// KeptDamaged names the damaged database files (mnemo.db.damaged-<UTC
	// time>, SalvageReport.Damaged) that salvages kept in the data
	// directory, each followed by its kept -wal and -shm
	// (mnemo.db.damaged-<UTC time>-wal, …-shm) and the index directory
	// kept with it (…-index, SalvageReport.KeptIndex), and the damaged write-ahead logs that an Open kept
	// with their -shm copies (mnemo.db-wal.damaged-<UTC time>,
	// mnemo.db-shm.damaged-<same>: KeptDamaged), when the erasure
	// changed anything: no erasure reaches them, and they may still hold
	// what it erased. Delete them once no longer needed. Nil when there
	// are none, and on Postgres.
	KeptDamaged []string `json:"keptDamaged,omitempty"`

	residue residue  // what the residue check looks for (bounded: residue.go)
	owners  []string // the erased threads' and resource's ids (the index check: purge_indexes.go)
	marker  string   // the erasing marker of this erasure
	keys    []string // the fence keys of the threads and resources touched
	noop    bool     // the transaction changed no row: no purge is owed
	touched []string // the threads whose observations the erasure invalidated from a seq (invalidateObservations)
}

// changesSoFar returns how many rows SQLite has changed on tx's connection
// (total_changes(), triggers included), to tell an erasure that found
// nothing; false on Postgres, which keeps no such count (there the purge
// only clears the marker).
func changesSoFar(ctx context.Context, tx *store.Tx) (int64, bool, error) {
	if tx.Dialect == store.Postgres {
		return 0, false, nil
	}
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("engine: count changes: %w", err)
	}
	return n, true, nil
}

// eraseKind says what an erasure targets.
type eraseKind string

const (
	eraseMessages eraseKind = "messages"
	eraseThread   eraseKind = "thread"
	eraseResource eraseKind = "resource"
)

// DeleteMessages erases messages by id: their rows (and full tool results),
// their lexical and vector index entries and stored embeddings; it
// invalidates every observation whose range reaches a deleted turn, the
// reflections built on those and the thread's memo entries; it scrubs the
// previews of the deleted turns in past memctx records (the references stay,
// so Replay reports them as erased). Seqs are never reused: an erased seq
// leaves a tombstone.
//
// When DeleteMessages returns nil, the erased text is in no file of the data
// directory: SQLite runs with secure_delete and its WAL is checkpointed and
// truncated (a stale copy of an erased text left in a page's free space is
// zeroed in place, and the file is vacuumed when one remains where the
// page does not say what is free, or when the erasure is too large to
// search for: EraseResult.Vacuumed), the bleve segments are merged
// (recall.Lexical.Purge), and quarantined index copies are removed. A crash after the transaction
// commits leaves a marker that Open completes.
//
// Ids that are not stored are reported in NotFound; when none is, nothing
// is written and no purge runs (EraseResult.Purge 0, no event) but one an
// earlier erasure left owed. Errors: a
// *ValidationError for an invalid id; ErrEraseIncomplete (the data is
// logically gone, the physical purge is retried on the next erasure or
// Open; an erasure that finds nothing left to erase, such as the same one
// asked again, completes it too, and so does a DeleteThread of a thread
// no longer stored; such an erasure first waits for the purges under way,
// until ctx ends).
func (e *Engine) DeleteMessages(ctx context.Context, ids ...string) (*EraseResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, invalid(-1, "ids", "at least one message id is required")
	}
	for i, id := range ids {
		if !ValidID(id) {
			return nil, badID(-1, fmt.Sprintf("ids[%d]", i), id, false)
		}
	}
	return e.erase(ctx, eraseMessages, ids)
}

// DeleteThread erases a thread and everything derived from it: as
// DeleteMessages for each of its messages, plus the thread row, its
// tombstones, its observations (invalidated and scrubbed), its working
// memory (scope thread), and its runs: their memctx records and tool
// applications (an erased thread leaves no run listing). The thread id may
// be used again afterwards; it starts a new thread, which sees nothing of
// the old one: where a record is kept (its runs' owners, its observation
// rows, the references other threads' runs kept to its turns in their
// memctx records) the thread id and its turns' message ids are replaced by opaque
// tombstones (beginning with TombstonePrefix), and the runs stay claimed by
// the tombstone. A run another resource recorded under the id before the
// thread existed (its LoadContext on a then free id) is that resource's:
// it stays as it is, thread id and query, and is erased and expired as a
// run with no stored thread of its resource (DeleteThreadOf, Expire).
//
// A thread id with runs and no stored thread (a LoadContext before the
// first append, or just after the thread was erased) is erased as a
// thread with no messages: the runs of every resource recorded under it
// go (DeleteThreadOf limits that to some resources). It returns
// ErrThreadNotFound when the id has neither a thread nor a run; a
// *ValidationError naming threadId for an id no record can have
// (ValidID); ErrEraseBusy when work in flight on the thread outlasts
// Config.EraseWait (nothing erased); ErrEraseIncomplete as for
// DeleteMessages; ErrClosed, ErrNilContext.
func (e *Engine) DeleteThread(ctx context.Context, threadID string) (*EraseResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	return e.erase(ctx, eraseThread, []string{threadID})
}

// DeleteResource erases every thread of a resource (see DeleteThread) and
// every working-memory state the resource owns (both scopes). The resource
// id, often an e-mail address, is replaced by an opaque tombstone wherever
// a record is kept (memctx records, run owners, observation rows), so once
// DeleteResource returns the id is in no file of the data directory. A
// resource with nothing stored is not an error: the result is empty, and
// on SQLite nothing is written and no purge runs (Purge 0, no event).
// Errors: a *ValidationError naming resourceId for an id no record can
// have (ValidID); ErrEraseBusy when work in flight on the resource
// outlasts Config.EraseWait (nothing erased); ErrEraseIncomplete as for
// DeleteMessages; ErrClosed, ErrNilContext.
func (e *Engine) DeleteResource(ctx context.Context, resourceID string) (*EraseResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if !ValidID(resourceID) {
		return nil, badID(-1, "resourceId", resourceID, false)
	}
	return e.erase(ctx, eraseResource, []string{resourceID})
}

// eraseState orders erasures against the work that reads turns and later
// records something derived from them (fence.go).
type eraseState struct {
	fence fence

	mu      sync.Mutex
	owed    purgeSet      // purges that failed or were cancelled (purge.go)
	running int           // purges under way (completeErasures), guarded by mu
	idle    chan struct{} // closed when running drops to 0; nil while none ran
	purges  atomic.Int64  // physical purges started, for the tests
	vacuums atomic.Int64  // VACUUMs the purges ran (vacuumResidue), for the tests
	cleared atomic.Int64  // pages whose free space the purges zeroed (clearResidue), for the tests
	live    atomic.Int64  // pages whose live rows held an erased prefix (clearResidue: another row holds it, or an erasure forgot one), for the tests
	reads   atomic.Int64  // reads of erased texts (erasure.texts) the transactions made, for the tests
	// composed, for the tests, is called by LoadContext once its context
	// is composed, before its record's transaction (SetBeforeMemCtx).
	composed atomic.Pointer[func()]
	// appended, for the tests, is called by Append once its transaction
	// committed, before the quota's evictions (SetAfterAppendCommit).
	appended atomic.Pointer[func()]
	// guarded, for the tests, is called by a guarded erasure (expiry,
	// quota eviction) once its guard passed, before its erasure's
	// statements, inside its transaction (SetAfterEraseGuard).
	guarded atomic.Pointer[func()]
	// settling, for the tests, is called by SettleDispatch once its checks
	// in the append's transaction passed, before the append's statements
	// (SetAfterSettleCheck).
	settling atomic.Pointer[func()]
	// drained, for the tests, is called by a purge once it drained the
	// outbox's delete rows, before it counts those deferred (purge.go).
	drained atomic.Pointer[func()]

	reindexed []string // the indexes the last purge rebuilt (clearIndexes; "*": every one), guarded by mu, for the tests
}

// erase runs the erasure transaction, then the physical purge.
func (e *Engine) erase(ctx context.Context, kind eraseKind, targets []string) (*EraseResult, error) {
	return e.eraseWith(ctx, kind, targets, eraseOpts{})
}

// eraseWith is erase with the lifecycle's options (lifecycle.go): a guard
// in the transaction and the reason of the published event.
func (e *Engine) eraseWith(ctx context.Context, kind eraseKind, targets []string, opts eraseOpts) (*EraseResult, error) {
	sw := e.newSweep()
	res, err := sw.erase(ctx, kind, targets, opts)
	if errors.Is(err, ErrThreadNotFound) && opts.guard == nil {
		// A thread erased already: its purge, if still owed, is
		// completed all the same (a failure stays owed and is logged).
		if _, perr := e.completeOwed(ctx); perr != nil {
			e.log.Warn("erasure: physical purge of earlier erasures incomplete", "err", perr)
		}
	}
	if err != nil {
		return nil, err
	}
	if res.noop {
		// Nothing left to erase, as when the erasure is asked again after
		// its purge was cut short: the purge still owed is completed now
		// (purge.go), rather than by the next erasure that removes
		// something.
		start := time.Now()
		ran, err := e.completeOwed(ctx)
		if ran {
			res.Purge = time.Since(start)
		}
		return res, err
	}
	if !e.onPostgres() {
		res.KeptDamaged = KeptDamaged(e.dir)
	}
	return res, sw.finish(ctx)
}

// purgeOf is the purge res's erasure of kind owes.
func purgeOf(kind eraseKind, res *EraseResult) purgeSet {
	return purgeSet{markers: []string{res.marker}, residue: res.residue, owners: kind == eraseResource || len(res.Threads) > 0,
		ids: ownerIDs{ids: res.owners}}
}

// publishErased publishes the event of an erasure of kind whose purge
// finished (perr nil) or failed.
func (e *Engine) publishErased(kind eraseKind, target string, opts eraseOpts, res *EraseResult, perr error) {
	detail := fmt.Sprintf("%s erased: %s, %s; purge %s", kind, count(len(res.Messages), "message", "messages"),
		count(len(res.Threads), "thread", "threads"), res.Purge.Round(time.Millisecond))
	if perr != nil {
		detail += "; purge incomplete: " + perr.Error()
	}
	ev := Event{Reason: EventErased, IDs: res.Messages, Count: len(res.Messages), Detail: detail}
	switch kind {
	case eraseThread:
		ev.ThreadID = target
	case eraseResource:
		ev.ResourceID = target
	}
	if opts.reason != "" {
		ev.Reason, ev.ResourceID = opts.reason, opts.resource
	}
	e.publish(ev)
	if len(res.Invalidated) > 0 {
		e.publish(Event{Reason: EventInvalidated, IDs: res.Invalidated, Count: len(res.Invalidated), ThreadID: ev.ThreadID, ResourceID: ev.ResourceID,
			Detail: "observations derived from erased turns"})
	}
}

// erasure is the state of one erasure transaction: what it erases, and
// what its steps found and report.
type erasure struct {
	ms        *msgstore.Store
	kind      eraseKind
	target    string // the thread or resource erased whole; "" for messages
	now       time.Time
	msgs      []msgstore.Message // the messages erased, in thread and seq order, without their texts (msgstore.ErasedPrefix)
	texts     journal.Erased     // the same: their ids, and their texts read from the rows (until deleteRows)
	threads   []string           // the threads deleted
	deleted   map[string]bool    // the same, as a set
	resources []string           // the resources whose records the erasure touches
	minSeq    map[string]int64   // the lowest erased seq of each touched thread
	ghosts    map[string]bool    // of those, the thread ids with no stored thread, whose runs of er.resources go (ghost.go)
	runs      []string           // the runs of the deleted threads
	ts        *tombstones        // the tombstones of this erasure (one key for all its steps)
	held      *unnamedTurns      // made once by unnamed
	res       *EraseResult
}

// eraseTx does every SQLite part of an erasure in tx, and writes the
// marker that makes the physical purge complete after a crash (purge.go).
// Each table's owner erases its own rows: the message store its rows
// (msgstore.Store.EraseMessages and the others), observations (observe.Invalidate), working memory
// (working.Invalidate, wmerase.go), the journal's records (journal.ScrubMemCtx
// and the others), and the erased owners' ids become tombstones
// (tombstone.go). The order matters: working memory reads the memctx
// records before they are scrubbed; both compare the records' queries
// with the erased texts, which they read from the rows (er.texts), so they
// run before the rows are deleted; entombing runs last.
func (e *Engine) eraseTx(ctx context.Context, tx *store.Tx, kind eraseKind, targets []string, marker string) (*EraseResult, error) {
	er, err := selectErasure(ctx, tx, e.ms, kind, targets, e.now().UTC())
	if err != nil {
		return nil, err
	}
	// Before any read of the versions or the records: a run's
	// working-memory write of these resources, in any process, commits
	// before the reads or checks the records after the commit
	// (journal.CheckRunContext). After the thread locks selectErasure
	// took, in the same order in every erasure.
	if err := journal.LockRunContexts(ctx, tx, er.resources); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	read := er.texts.Texts
	er.texts.Texts = func(ctx context.Context, fn func(string) bool) error {
		e.erasure.reads.Add(1)
		return read(ctx, fn)
	}
	changed, counted, err := changesSoFar(ctx, tx)
	if err != nil {
		return nil, err
	}
	steps := []func(context.Context, *store.Tx) error{
		er.invalidateObservations, // observations, reflections, memo entries
		er.forgetRecalled,         // recorded recallObservations results holding them
		func(ctx context.Context, tx *store.Tx) error { return e.rebuildWorkingMemory(ctx, tx, er) },
		er.scrubMemCtx,    // memctx previews and queries
		er.deleteRows,     // rows, full results, embeddings, index removals
		er.forgetSeqs,     // thread counters, seq tombstones
		er.deleteThreads,  // deleted threads: row, tombstones, working memory, runs
		er.deleteResource, // the erased resource's working memory
		er.entomb,         // erased owners' ids become tombstones
	}
	for _, step := range steps {
		if err := step(ctx, tx); err != nil {
			return nil, err
		}
	}
	for _, m := range er.msgs {
		er.res.keys = append(er.res.keys, threadKey(m.ThreadID), resourceKey(m.ResourceID))
	}
	for _, t := range er.threads {
		er.res.keys = append(er.res.keys, threadKey(t))
	}
	for _, r := range er.resources {
		er.res.keys = append(er.res.keys, resourceKey(r))
	}
	if after, _, err := changesSoFar(ctx, tx); err != nil {
		return nil, err
	} else if counted && after == changed {
		// Nothing was stored: no row changed, no file holds anything to
		// purge (no marker, no REINDEX, no merge: sweep.erase).
		er.res.noop = true
		return er.res, nil
	}
	// The marker: its existence after commit means "purge owed".
	info, _ := json.Marshal(map[string]any{"kind": kind, "messages": len(er.msgs), "threads": len(er.threads)})
	if err := journal.MarkErasing(ctx, tx, marker, info, er.now); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return er.res, nil
}
