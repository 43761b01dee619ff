package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-go/mnemo/internal/filekind"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// DatabaseFile is the name of the SQLite database inside the data directory.
const DatabaseFile = "mnemo.db"

// Engine is an open memory. It is safe for concurrent use by multiple
// goroutines. Close releases the SQLite database and the index directory and
// cancels background work; every method returns ErrClosed afterwards.
type Engine struct {
	cfg  Config
	dir  string
	db   *sql.DB
	pool *pgxpool.Pool // the Postgres pool db runs on; nil on SQLite
	// shared is whether cfg's Limits, Retention and Lifecycle are the
	// database's (Config.SharedBounds; bounds.go): Bounds less those.
	shared Bounds
	// orphans are the files of a database that was gone, which Open kept
	// (orphans.go: KeptOrphans).
	orphans []string
	// applySlots bounds the tool applications running at once on
	// Postgres (applySlot, postgres.go); nil on SQLite.
	applySlots chan struct{}
	ms         *msgstore.Store // the message tables' owner
	journal    *journal.Journal
	redactor   Redactor
	limits     Limits
	log        *slog.Logger
	now        func() time.Time

	// bg is cancelled by Close; background goroutines run on it and are
	// counted in wg. They are started only by spawn, which refuses once
	// Close has begun (closing, under bgMu), so no wg.Add can race Close's
	// wg.Wait.
	bg      context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	bgMu    sync.Mutex
	closing bool
	// The outbox drainer runs on drainBg, not bg: Close closes drainStop,
	// the drainer returns after the batch in flight, and drainBg is
	// cancelled only when that batch outlasts CloseDrainWait or the
	// caller's context (CloseContext).
	drainBg     context.Context
	drainCancel context.CancelFunc
	drainStop   chan struct{}
	// drainHeld is set while the drainer leaves the outbox alone because
	// mnemo.db may not be written (background_hold.go).
	drainHeld atomic.Bool
	// replacedLogged is set once replacedFile has logged that mnemo.db was
	// replaced (replaced.go).
	replacedLogged atomic.Bool

	closeOnce sync.Once
	closed    chan struct{}

	idx indexState   // derived indexes; see recall.go
	obs observeState // observational memory; see observe.go
	wm  workingState // working memory; see working.go

	lock    *dirLock   // the data directory's lock; see lock.go
	events  eventSink  // see events.go
	erasure eraseState // see erase.go
	space   spaceState // the last write refused for room; see disk_space.go

	// legacyIDs makes newID take "." and ".." (legacyid.Allow, for tests
	// of stores written before ValidNewID); false but in such tests.
	legacyIDs atomic.Bool
}

// Open opens or creates the memory in cfg.Dir: the directory (0700), the
// SQLite database (0600, WAL, migrated to the current schema) and the derived
// indexes, which catch up with the database from the outbox. With
// cfg.Postgres set it opens the memory in that Postgres database instead
// (Config.Postgres): no directory, no lock file, no derived index
// on disk.
//
// Open refuses a database written by a newer mnemo (the error matches
// ErrSchemaTooNew and names the file) and never modifies it, and a
// Config.Limits.MaxAnswerBytes below Limits.MaxContentBytes (a
// *ValidationError matching ErrAnswerBoundTooSmall), and a negative
// size, bound or duration that has no meaning of its own (Config.RecentN,
// a Limits or Quota field, Retention, Lifecycle.IdleTTL, EraseWait,
// Rerank.Depth, an ObserveConfig count or CallTimeout: a *ValidationError
// naming it), and a Config.Recall or Config.WorkingMemory their own
// validators refuse (a *ValidationError on Recall.<Field> or
// WorkingMemory), creating nothing.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if ctx == nil {
		return nil, ErrNilContext
	}
	if cfg.Rerank != nil && cfg.Rerank.Reranker == nil {
		return nil, invalid(-1, "Rerank.Reranker", "a re-rank stage needs a Reranker (or leave Rerank nil)")
	}
	if err := cfg.RecallTuning.Validate(); err != nil {
		return nil, invalid(-1, "RecallTuning", "%s", strings.TrimPrefix(err.Error(), "recall: "))
	}
	if err := checkObserveConfig(cfg.Observe); err != nil {
		return nil, err
	}
	if err := checkSizes(cfg); err != nil {
		return nil, err
	}
	if err := checkDefaults(cfg); err != nil {
		return nil, err
	}
	if err := checkLimits(cfg.Limits.withDefaults()); err != nil {
		return nil, err
	}
	if err := checkSharing(cfg); err != nil { // bounds.go
		return nil, err
	}
	if cfg.Postgres != "" {
		return openPostgres(ctx, cfg) // postgres.go
	}
	if cfg.Dir == "" {
		return nil, invalid(-1, "Dir", "the data directory is required (or Postgres, a database DSN)")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("engine: data directory %s: %w", cfg.Dir, err)
	}
	if cfg.MustExist {
		if _, err := os.Stat(filepath.Join(dir, DatabaseFile)); err != nil {
			return nil, notDataDir(dir, err)
		}
	}
	if err := goneLink(dir); err != nil {
		return nil, err // before the lock file: nothing is written to dir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("engine: create data directory: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("engine: data directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("engine: data directory %s is not a directory", dir)
	}
	lock, err := lockDir(ctx, dir, cfg.holder(), cfg.lockWait()) // lock.go
	if err != nil {
		return nil, err
	}
	e, err := open(ctx, cfg, dir)
	if err != nil {
		lock.release()
		return nil, diskFull(dir, err) // disk_full.go
	}
	e.lock = lock
	return e, nil
}

// open opens the engine on dir once its lock is held.
func open(ctx context.Context, cfg Config, dir string) (*Engine, error) {
	if err := checkSwap(dir); err != nil { // salvage_swap.go
		return nil, err
	}
	if err := notRegularDatabase(dir); err != nil {
		return nil, err
	}
	if err := databaseHeader(dir, cfg.MustExist); err != nil { // db_header.go
		return nil, err
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	orphans, err := keepOrphans(dir, now()) // orphans.go
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, filepath.Join(dir, DatabaseFile))
	if err != nil && cfg.KeepOutbox && noSpace(err) {
		db, err = openReadShared(ctx, cfg, dir, err) // disk_full.go
	}
	if store.IsCorrupt(err) {
		// A file SQLite cannot even read the schema version of (truncated,
		// overwritten): nothing but a backup or a salvage repairs it.
		return nil, fmt.Errorf("%w: %w", ErrDatabaseCorrupt, err)
	}
	if errors.Is(err, ErrSchemaTooNew) {
		return nil, err // its text begins "engine: " (internal/store's errors.go)
	}
	if errors.Is(err, store.ErrNoSchema) {
		return nil, fmt.Errorf("%w: %s: %s: nothing was written to it", ErrNoSchema, filepath.Join(dir, DatabaseFile), strings.TrimPrefix(err.Error(), store.ErrNoSchema.Error()+": "))
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e, err := start(ctx, cfg, dir, db, nil)
	if store.IsCorrupt(err) && !errors.Is(err, ErrDatabaseCorrupt) {
		// A damaged page that the schema read did not reach but Open's
		// repairs did (the embeddings scan, the outbox): the same advice.
		return nil, fmt.Errorf("%w: %w", ErrDatabaseCorrupt, err)
	}
	if err == nil {
		e.warnWAL() // wal_damage.go
		e.orphans = orphans
		e.warnOrphans()
	}
	return e, err
}

// removeIndexes removes dir's derived indexes (index/lexical and
// index/snapshots); the next Open rebuilds them from the database.
func removeIndexes(dir string) error {
	for _, sub := range []string{LexicalDir, SnapshotDir} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	return nil
}

// notRegularDatabase returns ErrDatabaseCorrupt when dir's database file
// exists but is not a regular file (a directory, a device, a link to
// /dev/zero), a *GoneDatabaseError when it is a link to nothing: SQLite cannot use it, an open failed with "create …: is a
// directory", and a salvage's copy of /dev/zero never ended. Nothing in
// it can be salvaged. A write-ahead log that is not a regular file (a
// link included) is ErrWALNotFile (a -shm: ErrWALIndexNotFile, which
// matches ErrWALNotFile too): the database file is not at fault.
func notRegularDatabase(dir string) error {
	path := filepath.Join(dir, DatabaseFile)
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %w: %s is a %s", ErrDatabaseCorrupt, ErrDatabaseNotFile, path, filekind.Of(fi.Mode()))
	}
	if err := goneLink(dir); err != nil {
		return err
	}
	if err := store.WALNotFile(path); err != nil {
		if we := new(store.WALNotFileError); errors.As(err, &we) && we.Index {
			return fmt.Errorf("%w: %w", ErrWALIndexNotFile, err) // errors.Is ErrWALNotFile too
		}
		return fmt.Errorf("%w: %w", ErrWALNotFile, err)
	}
	return nil
}

// goneLink returns the *GoneDatabaseError of dir when its database file is
// a symbolic link whose target is missing (an unmounted volume, a moved
// file), else nil: SQLite would create an empty database at the target,
// beside the indexes of the one that is gone. The reads' refusal, word for
// word (orphans.go). Open asks before it creates the lock file, so that a
// refused open writes nothing to dir (it left a LOCK file), and again
// under the lock (notRegularDatabase).
func goneLink(dir string) error {
	path := filepath.Join(dir, DatabaseFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && danglingLink(path) != "" {
		return notDataDir(dir, err)
	}
	return nil
}

// start builds the engine on db (SQLite in dir, or Postgres through pool
// when pool is not nil, dir then ""), opens the indexes, repairs what a
// crash left, then starts the outbox drainer (not with KeepOutbox). On
// error it closes db and pool.
func start(ctx context.Context, cfg Config, dir string, db *sql.DB, pool *pgxpool.Pool) (*Engine, error) {
	e := &Engine{
		cfg:      cfg,
		dir:      dir,
		db:       db,
		pool:     pool,
		ms:       msgstore.New(db),
		redactor: cfg.Redactor,
		limits:   cfg.Limits.withDefaults(),
		log:      cfg.Logger,
		now:      cfg.Now,
		closed:   make(chan struct{}),
	}
	if e.redactor == nil {
		e.redactor = DefaultRedactor()
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.cfg.RecentN <= 0 {
		e.cfg.RecentN = DefaultRecentN
	}
	e.journal = journal.New(db, e.now)
	closeDB := func() {
		store.CloseDB(db)
		if pool != nil {
			pool.Close()
		}
	}
	if err := e.chooseEmbedder(ctx); err != nil { // embedder_record.go
		closeDB()
		return nil, err
	}
	e.bg, e.cancel = context.WithCancel(context.Background())
	e.drainBg, e.drainCancel = context.WithCancel(context.Background())
	e.drainStop = make(chan struct{})
	if err := e.openIndexes(ctx); err != nil {
		e.cancel()
		e.drainCancel()
		closeDB()
		return nil, err
	}
	// Working memory first: an erasure the repair resumes renders the
	// configured template (wmInitial).
	if err := e.openWorkingMemory(ctx); err != nil { // working.go
		e.Close()
		return nil, err
	}
	if err := e.repairOnOpen(ctx); err != nil { // repair.go
		e.Close()
		return nil, err
	}
	e.retryOwedAtOpen(ctx) // index_space.go
	// The drainer starts once the open's own statements are done: on
	// Postgres its first drain, beside them, made the pool dial a second
	// connection on every open (the first is idle again by now).
	if !e.cfg.KeepOutbox {
		if err := e.spawn(e.runOutbox); err != nil {
			e.Close()
			return nil, err
		}
	}
	e.startObserver() // observe.go
	return e, nil
}

// CloseDrainWait bounds how long Close waits for the index batch the
// outbox drainer is working on (at most 512 messages indexed lexically and
// embedded, their outbox rows then deleted): a one-shot command (mnemo
// search, mnemo context) that closes the engine while the indexes catch up
// (a quarantined lexical index being rebuilt, messages a killed process
// left unindexed) keeps that batch's work, so each run gets further. A
// batch still running then is cancelled; its rows stay queued (nothing
// committed is lost, as after a crash) and the next open indexes them.
const CloseDrainWait = 10 * time.Second

// Close stops background work, closes the indexes and the database. The
// outbox drainer finishes the batch in flight first, for at most
// CloseDrainWait, and the shard snapshots that are due are written, for at
// most a minute (CloseContext bounds both by a context too). On SQLite the
// searches already running finish before the index is closed, waited for
// at most CloseDrainWait more (not after the context ends), and return
// ErrClosed, as every call overlapping Close may: never an answer of a
// closed index. An erasure's purge merging the lexical index is waited
// for the same way; an erasure whose purge Close cut short returns an error
// matching both ErrClosed and ErrEraseIncomplete (its rows are erased; the
// next Open completes the purge). On Postgres it returns within CloseDrainWait + 4 s even
// when the server stopped answering: the drainer's claimed rows are given back for at most 2 s
// more, and the pool's connections are closed for at most PoolCloseWait,
// then left to close in the background. It is safe to call more than
// once; later calls return nil.
func (e *Engine) Close() error { return e.CloseContext(context.Background()) }

// CloseContext is Close, waiting for the drainer's batch in flight until
// ctx ends or CloseDrainWait has passed, whichever comes first, then
// writing the due shard snapshots until ctx ends. A cancelled ctx waits
// for neither: the batch cut short stays queued (the next Open indexes
// it) and the snapshots not written are caught up from the database when
// their resources next load; nothing stored is lost. The database and the
// lock are released either way. A nil ctx is context.Background():
// closing is never refused. Errors: those of closing the indexes, the
// database and the lock file, joined (errors.Join); nil on a later
// call.
func (e *Engine) CloseContext(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var err error
	e.closeOnce.Do(func() {
		close(e.closed)
		e.bgMu.Lock()
		e.closing = true
		e.bgMu.Unlock()
		e.cancel()
		close(e.drainStop)
		e.waitBackground(ctx, CloseDrainWait)
		e.drainCancel()
		e.wg.Wait()
		if store.Damaged(e.db) {
			e.log.Warn("the database file was found damaged: closed without folding its WAL into it, which mnemo salvage keeps as found",
				"path", filepath.Join(e.dir, DatabaseFile))
		}
		err = errors.Join(e.closeIndexes(ctx), store.CloseDB(e.db), e.lock.release())
		if e.pool != nil {
			e.closePool() // postgres.go
		}
	})
	return err
}

// waitBackground waits for the background goroutines to return, at most
// until ctx ends or bound has passed.
func (e *Engine) waitBackground(ctx context.Context, bound time.Duration) {
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// spawn runs fn in a background goroutine that Close waits for. It returns
// ErrClosed, and does not run fn, once Close has begun.
func (e *Engine) spawn(fn func()) error {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.closing {
		return ErrClosed
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		fn()
	}()
	return nil
}

// Dir returns the absolute path of the data directory, or "" for an engine
// on Postgres (Config.Postgres), which has none.
func (e *Engine) Dir() string { return e.dir }

// Journal returns the run journal (memoized steps, tool applications and
// memctx records). It shares the engine's lifetime. A user reads it
// (ListRuns, MemCtx, RawMemCtx) and records steps and tool applications
// with it (Step, Apply).
//
// Do not call ClearErasing, ClearErasings, Set or Forget on it: they are
// the engine's own and damage its state. ClearErasing and ClearErasings
// drop the marker of an erasure whose purge is owed, so the purge is
// never retried; Set replaces a record the engine relies on (the data
// directory's embedder, ScopeMeta); Forget deletes memoized records an
// erasure had not asked to delete.
func (e *Engine) Journal() *journal.Journal { return e.journal }

// checkOpen refuses a call on a closed engine (ErrClosed) and a nil ctx
// (ErrNilContext). A nil ctx would panic inside database/sql while it
// holds its pool's lock, and every later call on the engine would then
// wait for that lock for ever.
func (e *Engine) checkOpen(ctx context.Context) error {
	if ctx == nil {
		return ErrNilContext
	}
	return e.checkClosed()
}

// checkWritable is checkOpen for a call that stores new data: it also
// refuses one once mnemo.db is found damaged (damagedFile:
// ErrDatabaseCorrupt), as Append, LoadContext, Observe, SetIdleTTL and
// RestoreDispatch do.
func (e *Engine) checkWritable(ctx context.Context) error {
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	return e.damagedFile()
}

// checkClosed refuses a call on a closed engine (ErrClosed).
func (e *Engine) checkClosed() error {
	select {
	case <-e.closed:
		return ErrClosed
	default:
		return nil
	}
}

// tx runs fn in one write transaction (store.RunTx: a *store.Tx in the
// database's dialect): commit when fn returns nil, roll back on error or
// panic. On Postgres a transaction aborted by a deadlock or a serialization
// failure is run again (store.RunTx), so fn starts from its arguments, not
// from what an earlier attempt left. fn's error is returned as it is.
//
// On Postgres the transaction first checks the schema's version (the
// store.WriteCheck pgstore.DB registers, run by store.RunTx): a schema a
// newer build migrated while e was open is ErrSchemaMigrated, returned as
// it is (its text names engine), and fn does not run.
func (e *Engine) tx(ctx context.Context, fn func(tx *store.Tx) error) error {
	fnFailed := false
	err := store.RunTx(ctx, e.db, func(tx *store.Tx) error {
		err := fn(tx)
		fnFailed = err != nil
		return err
	})
	if err != nil && !fnFailed && !errors.Is(err, ErrSchemaMigrated) {
		err = fmt.Errorf("engine: %w", err) // begin or commit
	}
	return e.wrote(err) // disk_space.go
}
