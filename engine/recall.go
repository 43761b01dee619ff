package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// This file connects the engine to the derived indexes (package recall):
// the lexical index directory's lifecycle (open, quarantine, rebuild), the
// outbox drainer (outbox.go) and the recall step of LoadContext.

// Paths of the derived indexes inside the data directory.
const (
	// LexicalDir is the bleve index, relative to the data directory.
	LexicalDir = "index/lexical"
	// SnapshotDir holds the shard snapshots of large resources
	// (recall.Config.SnapshotDir), relative to the data directory.
	SnapshotDir = "index/snapshots"
	// QuarantineDir receives corrupt index directories, one
	// subdirectory per event named by its UTC time.
	QuarantineDir = "quarantine"
)

// indexState holds the derived indexes.
type indexState struct {
	mu  sync.RWMutex
	ix  *recall.Index
	use *indexUse // the searches running on ix (indexuse.go); replaced with it (setIndex)
	// note says why recall is degraded, e.g. after a quarantine; nil when
	// healthy. Not under mu: a search reads and clears it (backlog) while
	// it holds its use of ix, which Reindex waits for holding mu.
	note atomic.Pointer[string]
	// quarantined is where the last damaged index directory went
	// (lexical_damage.go); "" when none was.
	quarantined string
	// lost is set (under mu) while no index is open because a damage
	// recovery closed it and could not open a new one (index_lost.go).
	lost *lostIndex
	// reopen, when set (tests only: SetBeforeIndexReopen), runs in the
	// damage recovery before it opens the new index; its error fails
	// that attempt as a failed open would.
	reopen atomic.Pointer[func() error]

	kick    chan struct{} // wakes the drainer; buffered 1
	room    chan struct{} // a write succeeded after a refusal for lack of room (roomAgain); buffered 1, nil on Postgres
	drainMu drainLock     // one drain at a time (drainlock.go)
	fresh   freshRows     // appended rows for the drainer (fresh.go)
	// beforeRead, when set (tests only: SetBeforeIndexRead), runs in the
	// drainer after it took a batch and before it reads the batch's
	// messages, so a test can change them at that moment.
	beforeRead atomic.Pointer[func()]
	// queued, when set (tests only: SetAfterReindexQueue), runs in
	// Reindex after it queued the messages to index or embed again and
	// before it drains the outbox, so a test can search at that moment.
	queued atomic.Pointer[func()]
	// rebuilt, when set (tests only: SetBeforeRebuildQueue), runs in
	// Reindex and the damage recovery after the new, empty index is open
	// for searches (e.idx.mu released) and before its messages are
	// queued, so a test can search at that moment.
	rebuilt atomic.Pointer[func()]
	// swapped, when set (tests only: SetAfterReindexSwap), runs in
	// Reindex on SQLite once the new, empty index is set (e.idx.mu held)
	// and before the stored embeddings and outbox rows are dropped, so a
	// test can make those steps fail.
	swapped atomic.Pointer[func()]
	// beforeSearch, when set (tests only: SetBeforeIndexSearch), runs in
	// a search on SQLite after it took its use of the index and before it
	// searches it, so a test can reindex or close at that moment.
	beforeSearch atomic.Pointer[func()]
	// beforePurge, when set (tests only: SetBeforeIndexPurge), runs in an
	// erasure's purge after it took its use of the index and before it
	// merges its segments, so a test can close the engine at that moment.
	beforePurge atomic.Pointer[func()]
	// clock, when set (tests only: SetOutboxClock), is the time of the
	// outbox's claims on Postgres and of the sync's count of the rows
	// other drainers hold (outboxNow), so a test can end a lease at a
	// given step; nil means time.Now.
	clock atomic.Pointer[func() time.Time]
	// synced, when set (tests only: SetAfterSyncDrain), runs in
	// syncPostgres after each drain and before it counts the rows other
	// drainers hold, so a test can end a lease at that moment.
	synced atomic.Pointer[func()]

	pg searcher // the recall search on Postgres (postgres.go); nil on SQLite
	// pgIndexed: the embedder has an HNSW index on Postgres, so no stored
	// embedding of it can have the wrong length (mayHoldDamaged).
	pgIndexed bool
}

func (s *indexState) index() *recall.Index {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ix
}

// setNote sets why recall is degraded ("" clears it).
func (s *indexState) setNote(note string) {
	if note == "" {
		s.note.Store(nil)
		return
	}
	s.note.Store(&note)
}

// noteText is why recall is degraded, "" when healthy.
func (s *indexState) noteText() string {
	if p := s.note.Load(); p != nil {
		return *p
	}
	return ""
}

// embedder returns the configured embedder or the offline default.
func (e *Engine) embedder() recall.Embedder {
	if e.cfg.Embedder != nil {
		return e.cfg.Embedder
	}
	return recall.HashEmbedder{}
}

// RecallTuning returns the tuning the engine's searches run with:
// Config.RecallTuning resolved for the engine's embedder
// (recall.Tuning.Resolve: every default filled in), with the SQLite index's knobs that Postgres ignores (BleveScores,
// BleveMatches, ExactVectors) cleared on Postgres. Its ChannelTuning and
// HybridRules are what a search of a mode and scope ran with.
func (e *Engine) RecallTuning() recall.Tuning {
	t := e.cfg.RecallTuning.Resolve(e.embedder().ID())
	if e.onPostgres() {
		t.BleveScores, t.BleveMatches, t.ExactVectors = false, false, false
	}
	return t
}

// DefaultRecall reports whether Config.Recall is set: whether a
// LoadRequest whose Recall is nil recalls (with those options) or not at
// all. Front ends that recall by default (the MCP tool memory_context)
// read it so that a configured recall is not overridden.
func (e *Engine) DefaultRecall() bool { return e.cfg.Recall != nil }

// openIndexes opens the lexical index (quarantining a corrupt directory and
// rebuilding it from SQLite) and queues a rebuild when the index is behind
// the store; start then starts the outbox drainer.
func (e *Engine) openIndexes(ctx context.Context) error {
	if e.onPostgres() {
		return e.openPostgresIndexes(ctx) // postgres.go
	}
	e.idx.kick = make(chan struct{}, 1)
	e.idx.room = make(chan struct{}, 1)
	path := filepath.Join(e.dir, LexicalDir)
	lex, err := recall.OpenLexical(path)
	if errors.Is(err, recall.ErrCorrupt) {
		q, qerr := e.quarantine(path)
		if qerr != nil {
			return fmt.Errorf("engine: quarantine %s: %w (after: %v)", path, qerr, err)
		}
		e.log.Warn("lexical index corrupt: quarantined, rebuilding from the store", "quarantine", q, "err", err)
		e.idx.setNote("lexical index was corrupt (quarantined to " + q + "); rebuilding")
		e.publish(Event{Reason: EventQuarantined, Path: q, Detail: err.Error()})
		lex, err = recall.OpenLexical(path)
	}
	if errors.Is(err, recall.ErrStaleIndex) {
		lex, err = e.rebuildStale(ctx, path, err)
	}
	if err != nil && e.cfg.KeepOutbox && recall.NoSpace(err) {
		e.openWithoutIndex(path, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	ix, err := e.newIndex(lex)
	if err != nil {
		lex.Close()
		return fmt.Errorf("engine: %w", err)
	}
	e.idx.setIndex(ix)
	if err := e.queueRebuildIfBehind(ctx, lex); err != nil {
		lex.Close()
		return err
	}
	return nil
}

// openWithoutIndex leaves a KeepOutbox open (a command that only reads)
// with no lexical index when opening one found no room (err): an index
// that is missing (quarantined, or removed) must be created, and a full
// disk cannot take its index_meta.json. Every read command (threads,
// messages, export) failed with that error, leaving only mnemo backup to
// get the data out. Now they read mnemo.db as always; IndexUnavailable
// says why there is no index, searches and recall answer "unavailable:
// index closed", and the next open with room (a writer's, mnemo check)
// creates and rebuilds it.
func (e *Engine) openWithoutIndex(path string, err error) {
	err = diskFull(e.dir, err)
	e.log.Warn("lexical index not opened for lack of room: reading without it", "path", path, "err", err)
	e.idx.mu.Lock()
	e.idx.lost = &lostIndex{cause: err, last: err, reader: true}
	e.idx.mu.Unlock()
}

// rebuildStale replaces a lexical index built with an older analyzer
// (recall.ErrStaleIndex, cause) by an empty one and queues every stored
// message for indexing. It is not corrupt, so it is removed rather than
// quarantined. The stored hash-384 vectors go too: they were computed from
// text before the same normalisation (recall.Fold) and are cheap to
// recompute while the messages are indexed again.
func (e *Engine) rebuildStale(ctx context.Context, path string, cause error) (*recall.Lexical, error) {
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("remove stale lexical index %s: %w", path, err)
	}
	if err := os.RemoveAll(filepath.Join(e.dir, SnapshotDir)); err != nil {
		return nil, fmt.Errorf("remove stale shard snapshots: %w", err)
	}
	if err := e.ms.DeleteEmbeddings(ctx, recall.HashID); err != nil {
		return nil, fmt.Errorf("drop stale %s embeddings: %w", recall.HashID, err)
	}
	lex, err := recall.OpenLexical(path)
	if err != nil {
		return nil, err
	}
	stored, err := e.ms.CountMessages(ctx)
	if err == nil {
		err = e.ms.DeleteOutboxOp(ctx, opIndex)
	}
	if err == nil {
		err = e.queueAll(ctx)
	}
	if err != nil {
		lex.Close()
		return nil, fmt.Errorf("queue rebuild: %w", err)
	}
	e.log.Warn("lexical index built with an older analyzer: rebuilding from the store", "err", cause)
	e.idx.setNote("lexical index built with an older analyzer; rebuilding with " + recall.AnalyzerName)
	e.publish(Event{Reason: EventRebuild, Count: int(stored), Path: path, Detail: e.idx.noteText()})
	return lex, nil
}

// recallConfig is the configuration of the engine's recall.Index over lex.
func (e *Engine) recallConfig(lex *recall.Lexical) recall.Config {
	return recall.Config{Lexical: lex, Source: e.ms, Embedder: e.embedder(), Tuning: e.cfg.RecallTuning, Damaged: e.requeueDamaged,
		SnapshotDir: filepath.Join(e.dir, SnapshotDir), SnapshotDropped: e.snapshotDropped, Location: e.location,
		QueryEmbedTimeout: e.cfg.QueryEmbedTimeout}
}

// snapshotDropped is recall.Config.SnapshotDropped: a resource's shard
// snapshot changed in place under its mapping, or its vector part failed
// the background check, and its shard is built again from the store.
func (e *Engine) snapshotDropped(resource, detail string) {
	e.log.Warn("shard snapshot dropped: rebuilding the resource's shard from the store", "resource", resource, "detail", detail)
	e.publish(Event{Reason: EventRebuild, ResourceID: resource,
		Detail: "the resource's shard snapshot was dropped (" + detail + "); its shard is built again from the store"})
}

// quarantine moves dir to <data>/quarantine/<UTC time>/ and returns the new
// path. When an ancestor of dir inside the data directory is not a
// directory (a file named index), that ancestor is what blocks the index
// and is moved instead; a file named quarantine is moved aside first
// (quarantine.displaced-<UTC time>), so neither bricks the directory.
func (e *Engine) quarantine(dir string) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405.000000000Z")
	top := filepath.Join(e.dir, QuarantineDir)
	if fi, err := os.Lstat(top); err == nil && !fi.IsDir() {
		if err := os.Rename(top, top+".displaced-"+stamp); err != nil {
			return "", fmt.Errorf("%s is not a directory and cannot be moved aside: %w", top, err)
		}
	}
	qdir := filepath.Join(top, stamp)
	if err := os.MkdirAll(qdir, 0o700); err != nil {
		return "", err
	}
	src := e.blockingPath(dir)
	dst := filepath.Join(qdir, filepath.Base(src))
	return dst, os.Rename(src, dst)
}

// blockingPath is the first ancestor of dir below the data directory that
// exists and is not a directory, or dir itself.
func (e *Engine) blockingPath(dir string) string {
	rel, err := filepath.Rel(e.dir, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return dir
	}
	p := e.dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if p == dir {
			break
		}
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return dir
}

// queueRebuildIfBehind queues every message for indexing when the lexical
// index holds fewer messages than the store minus the pending outbox (a
// new, deleted or quarantined index directory). The index rows already
// queued are replaced, so each message is queued once: an index
// quarantined again before the drainer finished the last rebuild had
// every message queued beside that rebuild's remaining rows (3,488 rows
// for 2,000 messages). Delete rows stay (their removal also deletes shard
// snapshots, which a quarantine keeps) and so do embed rows.
func (e *Engine) queueRebuildIfBehind(ctx context.Context, lex *recall.Lexical) error {
	n, err := lex.Count()
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	stored, pending, err := e.ms.IndexBacklog(ctx)
	if err != nil {
		return fmt.Errorf("engine: count messages: %w", err)
	}
	if int64(n)+pending >= stored {
		return nil
	}
	if e.idx.noteText() == "" {
		e.idx.setNote(fmt.Sprintf("lexical index behind the store (%d of %s); rebuilding", n, count(stored, "message", "messages")))
	}
	e.publish(Event{Reason: EventRebuild, Count: int(stored), Path: lex.Path(), Detail: e.idx.noteText()})
	if _, err := e.ms.ReplaceIndexQueue(ctx, time.Now()); err != nil {
		return fmt.Errorf("engine: queue rebuild: %w", err)
	}
	return nil
}

// queueAll puts every stored message in the outbox (op index).
func (e *Engine) queueAll(ctx context.Context) error {
	if err := e.ms.QueueAll(ctx, time.Now()); err != nil {
		return fmt.Errorf("engine: queue rebuild: %w", err)
	}
	return nil
}

// closeIndexes closes the derived indexes (the drainer has stopped) once
// the searches running on them have finished, waiting for them at most
// CloseDrainWait and not after ctx ends: those still running then return
// ErrClosed (searchBackend).
func (e *Engine) closeIndexes(ctx context.Context) error {
	e.idx.mu.Lock()
	defer e.idx.mu.Unlock()
	if e.idx.ix == nil {
		return nil
	}
	wait, cancel := context.WithTimeout(ctx, CloseDrainWait)
	_ = e.idx.awaitIdle(wait) // not waited for any longer: closed under them
	cancel()
	err := e.idx.ix.CloseContext(ctx)
	e.idx.setIndex(nil)
	return err
}

// kickOutbox wakes the outbox drainer after a commit. It never blocks.
func (e *Engine) kickOutbox() {
	select {
	case e.idx.kick <- struct{}{}:
	default:
	}
}

// SyncIndexes drains the outbox now and returns when every due row is
// done: after it returns, every message appended before the call is in
// the lexical index, and in the vector index unless its embedding is being
// retried. Rows deferred after a failure stay for the drainer. On Postgres
// it also waits for the rows other drainers (other processes) have
// claimed, until they finish or their lease ends and it embeds them.
// Errors: ErrClosed, ErrNilContext; ctx's (the rows not done stay
// queued); the database's or the indexes'.
func (e *Engine) SyncIndexes(ctx context.Context) error {
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	if e.onPostgres() {
		return e.syncPostgres(ctx) // outbox_postgres.go
	}
	_, err := e.drainOutbox(ctx, nil)
	if noRoom := (*indexNoRoomError)(nil); errors.As(err, &noRoom) {
		return err // DiskFull follows the index's own state (index_space.go)
	}
	return e.writeFailed(err) // disk_space.go
}

// Reindex rebuilds the derived indexes from SQLite: the lexical index
// directory is recreated and every message indexed again; stored
// embeddings are reused (reembed deletes the current embedder's first).
// First, on both backends, it writes the tables the schema derives by
// triggers again from their sources in one transaction (journal_tool_obs
// from the journal, message_calls from the messages: what Check compares).
// On SQLite it first waits for the searches running on the old index to
// finish (until ctx ends: then it returns ctx's error, wrapped, and
// changes nothing); searches that start meanwhile wait for the new index
// and run on it while it fills (a channel that has not seen every message
// yet says "degraded: index catching up"); none fails for it. They do not
// wait for the queueing of every message (230-334 ms at 100,000): until
// it is committed a search of the new index counts every message of its
// resource as not indexed yet; when the queueing, or dropping the stored
// embeddings (reembed) or the old outbox rows before it, fails (ctx
// ended, a store error) they go on doing so, and the note names the step
// and says to run Reindex again.
// On Postgres, whose indexes are kept by the transactions that change the
// rows, it embeds the messages without a stored embedding (every message
// with reembed) and returns when they are stored. Errors: ErrClosed,
// ErrNilContext; ctx's; the database's or the indexes' (SyncIndexes'
// at the end).
func (e *Engine) Reindex(ctx context.Context, reembed bool) error {
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	if err := e.rebuildDerivedTables(ctx); err != nil { // check_tables.go
		return err
	}
	if e.onPostgres() {
		return e.reindexPostgres(ctx, reembed) // postgres.go
	}
	if err := e.idx.drainMu.LockCtx(ctx); err != nil {
		return err
	}
	use, err := e.swapEmptyIndex(ctx, reembed)
	if err == nil {
		err = e.queueRebuilt(ctx, use)
	}
	e.idx.drainMu.Unlock()
	if err != nil {
		return err
	}
	e.idx.afterQueue()
	return e.SyncIndexes(ctx)
}

// swapEmptyIndex is Reindex's part under e.idx.mu: it waits for the
// searches of the old index, closes it, recreates the directory and opens
// the new, empty index (marked unqueued, its use returned), drops the
// embeddings with reembed and the outbox's index and embed rows. Queueing
// every message is left to queueRebuilt, after mu is released: searches
// that start meanwhile run on the new index, and the unqueued mark makes
// them count every message as missing, since a search between the empty
// index and the queued rows counted no backlog and answered "ok" without
// the hits. The queueing used to be done under mu, and searches waited
// for it: 25-37 ms at 10,000 messages, 230-334 ms at 100,000.
func (e *Engine) swapEmptyIndex(ctx context.Context, reembed bool) (*indexUse, error) {
	e.idx.mu.Lock()
	defer e.idx.mu.Unlock()
	if e.idx.ix != nil {
		if err := e.idx.awaitIdle(ctx); err != nil {
			return nil, err
		}
		if err := e.idx.ix.DropSnapshots(); err != nil {
			return nil, fmt.Errorf("engine: drop shard snapshots: %w", err)
		}
		if err := e.idx.ix.Close(); err != nil && !errors.Is(err, recall.ErrCorrupt) {
			return nil, fmt.Errorf("engine: close lexical index: %w", err)
		}
		e.idx.setIndex(nil)
	}
	path := filepath.Join(e.dir, LexicalDir)
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("engine: remove %s: %w", path, err)
	}
	lex, err := recall.OpenLexical(path)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	ix, err := e.newIndex(lex)
	if err != nil {
		lex.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	use := e.idx.setRebuiltIndex(ix)
	e.idx.lost = nil
	hook(&e.idx.swapped)
	if err := e.resetDerivedRows(ctx, reembed); err != nil {
		// The new index stays marked unqueued (searches count every
		// message as missing); the note says why and what to do.
		e.idx.setNote(unqueuedNote(err))
		return nil, err
	}
	e.idx.setNote("")
	e.publish(Event{Reason: EventRebuild, Path: path, Detail: "Reindex"})
	return use, nil
}

// resetDerivedRows is Reindex's store part of swapEmptyIndex: with reembed
// it drops the current embedder's stored embeddings, then the outbox's
// index and embed rows. Its errors name the step ("engine: drop
// embeddings: …", "engine: reset outbox: …").
func (e *Engine) resetDerivedRows(ctx context.Context, reembed bool) error {
	if reembed {
		if err := e.ms.DeleteEmbeddings(ctx, e.embedder().ID()); err != nil {
			return fmt.Errorf("engine: drop embeddings: %w", err)
		}
	}
	if err := e.ms.ClearIndexQueue(ctx); err != nil {
		return fmt.Errorf("engine: reset outbox: %w", err)
	}
	return nil
}

// unqueuedNote is the note of a Reindex stopped by err after it set the
// new, empty index and before it queued every message for it.
func unqueuedNote(err error) string {
	return "Reindex stopped before it queued the messages for the new index (" + err.Error() +
		"); they are missing from it until Reindex runs again or the next Open"
}

// queueRebuilt queues every stored message for Reindex's new index (use,
// marked unqueued) without holding e.idx.mu, and then clears the mark.
// When the queueing fails the mark stays (the index misses every message
// and the outbox does not say so) and the note says to reindex again.
func (e *Engine) queueRebuilt(ctx context.Context, use *indexUse) error {
	e.idx.beforeQueueing()
	if err := e.queueAll(ctx); err != nil {
		e.idx.setNote(unqueuedNote(err))
		return err
	}
	use.unqueued.Store(false)
	return nil
}

// beforeQueueing runs the test hook rebuilt, if set.
func (s *indexState) beforeQueueing() { hook(&s.rebuilt) }

// hook runs the test hook h, if set.
func hook(h *atomic.Pointer[func()]) {
	if f := h.Load(); f != nil {
		(*f)()
	}
}

// afterQueue runs the test hook queued, if set.
func (s *indexState) afterQueue() { hook(&s.queued) }

// recallQuery is the recall step's input.
type recallQuery struct {
	Text       string
	ThreadID   string
	ResourceID string
	Options    recall.Options
	Exclude    map[string]bool // message ids already in the prompt (the recent window)
	At         time.Time       // when the question is asked (recall.Query.At)
}

// SearchRequest is one search over a resource's memory (the API behind
// `mnemo search`); it is the recall step of LoadContext without the recent
// window.
type SearchRequest struct {
	// ResourceID is the resource searched; required (a *ValidationError on resourceId).
	ResourceID string
	ThreadID   string         // required with scope thread
	Query      string         // at most Config.Limits.MaxQueryBytes (ErrQueryTooLong), valid UTF-8 without NUL (a *ValidationError on query)
	Options    recall.Options // TopK 0 means recall.DefaultTopK
	// At is when the question is asked: the query's relative dates
	// ("yesterday", "last week", "two months ago") are resolved against it
	// in whole days of the resource's time zone (Config.ResourceTimeZone,
	// TimeZone; UTC by default) and scored like the dates it names
	// (recall.Query.At). Zero means the engine's clock (Config.Now).
	At time.Time
}

// Search runs a recall search: hits and their range neighbours, ordered by
// thread and seq, with the retrieval status. A missing or malformed
// ResourceID, or a malformed ThreadID, returns a *ValidationError on
// resourceId or threadId (errors.Is ErrInvalidInput and
// recall.ErrInvalidQuery). Invalid options return recall's errors, not a
// *ValidationError but an *OptionsError, which matches ErrInvalidInput and
// wraps recall's: recall.ErrInvalidOptions (with a *recall.OptionError
// naming the field), a *recall.FilterError, or recall.ErrInvalidQuery for
// scope thread without a ThreadID; a query longer than
// Config.Limits.MaxQueryBytes returns ErrQueryTooLong. A ThreadID of a
// stored thread of another resource returns ErrResourceMismatch, as
// LoadContext, Append and HandleToolCall do, naming only the ids given; a
// ThreadID stored nowhere finds nothing. When ctx ends during
// the search it returns an error wrapping ctx's (context.Canceled), never a
// result with a channel "degraded" by the cancellation; it writes nothing.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (*recall.Result, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if err := checkSearchIDs(req); err != nil {
		return nil, err
	}
	if err := e.checkQuery(req.Query); err != nil {
		return nil, err
	}
	if err := e.checkSearchThread(ctx, req); err != nil {
		return nil, err
	}
	at := req.At
	if at.IsZero() {
		at = e.now()
	}
	return e.search(ctx, recall.Query{Text: req.Query, ResourceID: req.ResourceID, ThreadID: req.ThreadID, Options: req.Options, At: at.UTC()})
}

// checkSearchIDs refuses a search without a resource, or with a resource
// or thread id that no thread can have (a *ValidationError on resourceId
// or threadId that also matches recall.ErrInvalidQuery): one holding NUL
// or 500 bytes was searched, and found nothing.
func checkSearchIDs(req SearchRequest) error {
	switch {
	case req.ResourceID == "":
		return &ValidationError{Index: -1, Field: "resourceId", Rule: "is required: a search reads one resource", Err: recall.ErrInvalidQuery}
	case !ValidID(req.ResourceID):
		return &ValidationError{Index: -1, Field: "resourceId", Rule: IDRule, Got: IDFault(req.ResourceID), Err: recall.ErrInvalidQuery}
	case req.ThreadID != "" && !ValidID(req.ThreadID):
		return &ValidationError{Index: -1, Field: "threadId", Rule: IDRule, Got: IDFault(req.ThreadID), Err: recall.ErrInvalidQuery}
	}
	return nil
}

// checkSearchThread refuses, with ErrResourceMismatch, a search naming a
// stored thread of a resource other than req.ResourceID. It answered no
// hits and no error, while LoadContext, Append and HandleToolCall refused
// that thread (walk37 #9).
func (e *Engine) checkSearchThread(ctx context.Context, req SearchRequest) error {
	if req.ThreadID == "" {
		return nil
	}
	th, err := e.GetThread(ctx, req.ThreadID)
	switch {
	case errors.Is(err, ErrThreadNotFound):
		return nil
	case err != nil:
		return err
	case th.ResourceID != req.ResourceID:
		return notOwner(req.ThreadID, req.ResourceID)
	}
	return nil
}

// search is the recall step of Search, SearchMessages, SearchPreviews and
// LoadContext on either backend. A channel that fails because ctx ended
// (a query embedding cut off) is not an outage to degrade around: the
// search returns ctx's error.
func (e *Engine) search(ctx context.Context, q recall.Query) (*recall.Result, error) {
	res, err := e.searchBackend(ctx, q)
	if cerr := ctx.Err(); cerr != nil && err == nil {
		return nil, fmt.Errorf("engine: search: %w", cerr)
	}
	if refusedOptions(err) {
		return nil, &OptionsError{Err: err}
	}
	return res, err
}

// refusedOptions reports whether err is recall's refusal of a query or
// its options that does not match ErrInvalidInput yet.
func refusedOptions(err error) bool {
	return err != nil && !errors.Is(err, ErrInvalidInput) &&
		(errors.Is(err, recall.ErrInvalidOptions) || errors.Is(err, recall.ErrInvalidQuery) || errors.Is(err, recall.ErrInvalidFilter))
}

// searchBackend runs q on the Postgres backend or on the derived indexes
// (with the resource's backlog folded into the retrieval status). On
// SQLite the search holds its use of the index it runs on (acquire), so
// Reindex, the damage recovery and Close wait for it before they close
// that index; a search that Close overlaps returns ErrClosed.
func (e *Engine) searchBackend(ctx context.Context, q recall.Query) (*recall.Result, error) {
	if e.onPostgres() {
		return e.searchPostgres(ctx, q)
	}
	ix, use := e.idx.acquire()
	if ix == nil {
		if err := e.checkClosed(); err != nil {
			return nil, err
		}
		return &recall.Result{Retrieval: recall.Unavailable("index closed")}, nil
	}
	res, err := e.searchIndex(ctx, ix, use, q)
	if cerr := e.checkClosed(); cerr != nil {
		return nil, cerr
	}
	return res, err
}

// searchIndex runs q on ix, the resource's backlog folded in, and then
// releases use, its use of ix (acquire); it takes no e.idx.mu meanwhile.
func (e *Engine) searchIndex(ctx context.Context, ix *recall.Index, use *indexUse, q recall.Query) (*recall.Result, error) {
	defer use.release()
	hook(&e.idx.beforeSearch)
	var erased []string
	q.Backlog, erased = e.backlog(ctx, q.ResourceID, use.unqueued.Load())
	q.Exclude = withErased(q.Exclude, erased)
	var res *recall.Result
	var err error
	if e.cfg.Rerank != nil {
		res, err = ix.SearchReranked(ctx, q, *e.cfg.Rerank)
	} else {
		res, err = ix.Search(ctx, q)
	}
	if ix.Lexical().Damaged() != nil {
		e.kickOutbox() // the drainer quarantines and rebuilds it (lexical_damage.go)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// backlog is what a search of resource reports of the indexes' lag (recall
// builds the status from it): the note of a rebuild, and the resource's
// rows that owe indexing (messages no index has seen), the only pending
// work that could add a hit: they make both channels "catching up". A row
// that owes a deletion does not: on SQLite its message is returned in
// erased, which the search leaves out before topK (withErased), so an
// answer holds min(topK, live matches) hits while the drainer has not
// removed it from the indexes yet; on Postgres an erasure removes the
// index entries with the rows. A message stored again since its erasure
// is left out too until the removal is applied (the indexes may still
// hold its erased text), and owes indexing meanwhile: the drainer indexes
// it again as it applies the removal (removeRows); stored again in
// another resource, it is left out of this one's searches and owes this
// one nothing. The index row of a message erased before the drainer
// reached it is a no-op, and not counted. Nor does a row that owes only
// an embedding: the vector channel's own status counts the messages
// without a vector ("degraded: N of M messages not embedded yet"), on
// SQLite those its shard holds, on Postgres every message of the resource
// (pgrecall). On Postgres an append writes its lexical entries in its
// transaction and queues only its embedding (an embed row), so that count
// is all a search there owes: its backlog (PendingIndex) finds index rows
// only in a database written before appends did so (drained as embed
// rows; Open writes their lexical entries, indexUnindexed). On SQLite the
// backlog lists the messages that owe indexing
// (recall.Backlog.UnindexedIDs), so that the search leaves out those the
// resource's in-memory shard already holds: a restored copy's first
// search answers over every message although none is in bleve yet. Both
// lists come from one indexed statement (msgstore.Pending), which reads
// no row when nothing is pending. With nothing pending the note is
// cleared: the rebuild has caught up. On an index a rebuild opened empty
// and has not queued every message for yet (unqueued, indexUse), the
// outbox does not count what it misses: every message of the resource is
// counted as not indexed (msgstore.CountResourceMessages), none taken as
// held, and the note stays.
func (e *Engine) backlog(ctx context.Context, resourceID string, unqueued bool) (bl recall.Backlog, erased []string) {
	notep := e.idx.note.Load()
	note := ""
	if notep != nil {
		note = *notep
	}
	if e.onPostgres() {
		if n, err := e.ms.PendingIndex(ctx, resourceID); err == nil && n > 0 {
			return recall.Backlog{Pending: n, Unindexed: n, Note: note}, nil
		}
	} else if w, err := e.ms.Pending(ctx, resourceID); err == nil {
		erased = w.Erased
		if unqueued {
			n, _ := e.ms.CountResourceMessages(ctx, resourceID) // an error counts none, as an error of Pending does
			return recall.Backlog{Pending: n, Unindexed: n, Note: note}, erased
		}
		if n := int64(len(w.Unindexed)); n > 0 {
			return recall.Backlog{Pending: n, Unindexed: n, UnindexedIDs: w.Unindexed, Note: note}, erased
		}
	}
	if notep != nil {
		e.idx.note.CompareAndSwap(notep, nil) // caught up after a rebuild (unless another began since)
	}
	return recall.Backlog{}, erased
}

// withErased returns exclude with the erased message ids added (a copy:
// exclude may be the caller's, LoadContext's recent window), or exclude
// itself when none is erased.
func withErased(exclude map[string]bool, erased []string) map[string]bool {
	if len(erased) == 0 {
		return exclude
	}
	out := make(map[string]bool, len(exclude)+len(erased))
	maps.Copy(out, exclude)
	for _, id := range erased {
		out[id] = true
	}
	return out
}

// recallTurns runs the recall step of LoadContext: hits and their
// message-range neighbours (reason "hit"/"range", with scores on hits),
// ordered by thread and seq, excluding the recent window. Their messages
// are read within budget (hitTurns).
func (e *Engine) recallTurns(ctx context.Context, q recallQuery, budget *pairBudget) ([]turn, recall.Retrieval, error) {
	res, err := e.search(ctx, recall.Query{Text: q.Text, ResourceID: q.ResourceID, ThreadID: q.ThreadID, Options: q.Options, Exclude: q.Exclude, At: q.At})
	if err != nil {
		return nil, recall.Retrieval{}, err
	}
	turns, err := e.hitTurns(ctx, q.ResourceID, res.Hits, budget)
	return turns, res.Retrieval, err
}

// hitTurns reads the messages of hits (within resourceID) and returns them
// as turns in the hits' order, those erased since they were indexed left
// out. The rows are decoded straight into the turns: read in order as
// Messages and then copied, they were three more copies of every recalled
// message (issue 14, BENCHMARKS.md). The rows are read within what budget
// has left (msgstore.Message.Size; none when the recent window took the
// whole Limits.MaxAnswerBytes), counted as they arrive and spent from it:
// more is an *AnswerTooLargeError naming the fields that shrink them.
func (e *Engine) hitTurns(ctx context.Context, resourceID string, hits []recall.Hit, budget *pairBudget) ([]turn, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	turns := make([]turn, 0, len(hits))
	if len(hits) == 0 {
		return turns, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.MessageID
	}
	rows, err := e.ms.MessagesByIDWithin(ctx, resourceID, ids, budget.readBound())
	if errors.Is(err, msgstore.ErrTooLarge) {
		return nil, budget.tooLarge()
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	size := 0
	for i := range rows {
		size += rows[i].Size()
	}
	if err := budget.spend(size); err != nil {
		return nil, err // a row of one byte with no byte left (readBound gave 1)
	}
	byID := make(map[string]int, len(rows)) // index in rows
	for i := range rows {
		byID[rows[i].ID] = i
	}
	for _, h := range hits {
		i, ok := byID[h.MessageID]
		if !ok {
			continue // erased since it was indexed
		}
		m, err := messageFromRow(rows[i])
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		t := turn{Message: m, Reason: memctxReason(h.Reason)}
		if h.Reason == recall.ReasonHit {
			score := h.Score
			t.Score, t.Lexical, t.Vector = &score, h.Lexical, h.Vector
		}
		turns = append(turns, t)
	}
	return turns, nil
}
