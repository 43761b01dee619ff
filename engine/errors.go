package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// ErrInvalidInput is returned (wrapped in a *ValidationError) by Append,
// LoadContext and the read methods when a request breaks a rule: a bad role,
// id, tool-call shape or size. Nothing is stored.
var ErrInvalidInput = errors.New("engine: invalid input")

// ErrConflict is returned by Append when a message id is already stored with
// different content, or in another thread. Message ids are global to a data
// directory (not per resource): an id taken in another thread, whatever its
// resource, is refused, and the text names neither that thread nor its
// resource or content.
var ErrConflict = errors.New("engine: message id already stored with different content")

// ErrDispatchConflict is returned (wrapped) when a dispatch's run and call
// do not agree with what is stored: by BeginDispatch when the call was
// begun with another message, or a later message of the thread makes the
// call again; by RestoreDispatch when the dispatch is stored already as
// another (another message, name, state or time), or a later message makes
// its pending call again. It matches ErrConflict, whose text ("message id
// already stored with different content") read as a message's fault.
var ErrDispatchConflict error = dispatchConflict{}

type dispatchConflict struct{}

func (dispatchConflict) Error() string { return "engine: dispatch conflict" }

// Is matches ErrConflict.
func (dispatchConflict) Is(target error) bool { return target == ErrConflict }

// ErrDuplicateID is matched (through a *ValidationError on the field
// messages[i].id) by the error Append returns when one request gives a
// message id twice with other content or other metadata: the id names one
// message. The same message twice (same content and metadata) is not
// refused: it is stored once, as a re-send is (AppendResult.Duplicates).
var ErrDuplicateID = errors.New("engine: message id given twice in one request")

// ErrResourceMismatch is returned by Append, LoadContext, BeginDispatch,
// HandleToolCall, Tools, Unsettled, SetIdleTTL, Search, SearchMessages,
// SearchPreviews and Observations (given a thread and a resource) when a
// thread is addressed under a resource other than the one it belongs to.
// Its text names the thread and resource the caller gave, never the owner;
// it tells the caller the thread id is taken, so an application serving
// tenants answers it as not found (as the HTTP API's 404 does).
var ErrResourceMismatch = errors.New("engine: thread belongs to another resource")

// notOwner is the ErrResourceMismatch of threadID addressed as resourceID's.
// It must not name the owner: the caller may be another tenant.
func notOwner(threadID, resourceID string) error {
	return fmt.Errorf("%w: %q is not a thread of resource %q", ErrResourceMismatch, threadID, resourceID)
}

// ErrThreadNotFound is returned by GetThread and Messages when the thread
// does not exist.
var ErrThreadNotFound = errors.New("engine: thread not found")

// ErrMessageNotFound is returned by FullContent when no message has the id.
var ErrMessageNotFound = errors.New("engine: message not found")

// ErrInconsistent is returned (wrapped in a *CheckError listing the
// problems) by Check when the store and its derived indexes disagree.
var ErrInconsistent = errors.New("engine: inconsistent")

// ErrDatabaseCorrupt is matched (through a *CheckError) by the error Check
// returns when SQLite's own integrity check of the database file fails,
// by the error Open returns when SQLite cannot read the file at all (a
// truncated or overwritten mnemo.db: SQLITE_CORRUPT or SQLITE_NOTADB), by
// the error of any read or write that met a damaged page of mnemo.db
// (SQLite's error, its text unchanged), and, once one has, by the error
// of every call that would store new data: Append (and BeginDispatch and
// SettleDispatch, which append), LoadContext (its run's memctx record
// could not be kept: no context is answered without one), Observe, a
// working-memory update (HandleToolCall, working.Memory's Merge, Set,
// Edit), SetIdleTTL and RestoreDispatch; what removes data (the
// erasures, Expire) still runs, and reads that miss the damaged pages
// still answer. Until the process ends, and in every process while the
// record the first left beside the file is there (mnemo.db.damage-seen,
// read at Open and again at most every 2 seconds; removed by Salvage, by
// a CheckWith Full that finds the file sound, or by hand): the authority
// itself is damaged, so rebuilding the indexes cannot repair it; restore
// the database from a backup (then CheckWith Full), or salvage it. On
// Postgres, IsDatabaseCorrupt also knows the server's damaged data.
var ErrDatabaseCorrupt = store.ErrDatabaseCorrupt

// IsDatabaseCorrupt reports whether err is a damaged database's: it
// matches ErrDatabaseCorrupt, or it is Postgres's report of damaged data,
// SQLSTATE XX001 data_corrupted (a damaged table page) or XX002
// index_corrupted (a damaged index: REINDEX repairs it).
func IsDatabaseCorrupt(err error) bool {
	return errors.Is(err, ErrDatabaseCorrupt) || store.IsCorrupt(err)
}

// ErrDatabaseEmpty is matched, with ErrDatabaseCorrupt, by the error Open
// returns when mnemo.db has 0 bytes, or is a SQLite header at schema
// version 0 with no table (and no write-ahead log holds its pages), while
// the directory holds indexes (index/), or whenever
// Config.MustExist is set: SQLite would take the file for a new database
// and write a new schema into it, hiding a database cut to nothing (a
// failed copy, a full disk) behind an empty memory. Open writes nothing
// to the file. Restore mnemo.db from a backup; a directory that never held
// a memory may have the file deleted, and a writing command creates it.
var ErrDatabaseEmpty error = &narrowError{"engine: database file is empty", ErrDatabaseCorrupt}

// ErrDatabaseNotFile is matched, with ErrDatabaseCorrupt, by the error Open,
// Salvage and CheckFile return when mnemo.db exists but is not a regular file: a
// directory, a device, a link to /dev/zero. It holds no database, so
// nothing can be salvaged from it: move it away and restore mnemo.db from
// a backup. A link to a file that does not exist is matched too, but by a
// *GoneDatabaseError (its Link; not ErrDatabaseCorrupt): make its target
// reachable again, or restore, and keep the log beside it.
var ErrDatabaseNotFile = errors.New("engine: the database is not a regular file")

// ErrWALNotFile is matched by the error Open, Salvage, Backup and CheckFile return,
// before SQLite opens anything, when mnemo.db-wal or mnemo.db-shm exists
// but is not a regular file: a directory, a pipe, a device, or a symbolic
// link (not followed, whatever it points at); its text names the file
// (the error matches ErrWALIndexNotFile too for the -shm), its kind and
// a link's target. It is not a file SQLite wrote and mnemo.db is not at
// fault (not ErrDatabaseCorrupt): stop every process using the
// directory, move that file aside, and run the command again.
var ErrWALNotFile = errors.New("engine: the write-ahead log is not a regular file")

// ErrWALIndexNotFile is matched, with ErrWALNotFile (which callers test
// for either file), when the file that is not a regular file is
// mnemo.db-shm, the write-ahead log's index, not the log itself: its text
// names the index, so the message does not blame the log.
var ErrWALIndexNotFile error = &narrowError{"engine: the write-ahead log's index (" + DatabaseFile + "-shm) is not a regular file", ErrWALNotFile}

// narrowError is a sentinel with its own text that errors.Is also matches
// to the broader sentinel of, whose case it narrows.
type narrowError struct {
	msg string
	of  error
}

func (e *narrowError) Error() string { return e.msg }
func (e *narrowError) Unwrap() error { return e.of }

// ErrNotDataDir is returned by Open with Config.MustExist when the
// directory does not exist or holds no mnemo database (a
// *GoneDatabaseError when the write-ahead log or indexes of one that was
// there are), or (its text saying so) when the Postgres database's
// schema holds no mnemo tables.
var ErrNotDataDir = errors.New("engine: not a mnemo data directory")

// ErrNoSchema is matched, with ErrNotDataDir, by the error Open returns
// when mnemo.db is a SQLite database without mnemo's schema: another
// program's database (schema version 0), or one whose mnemo tables were
// dropped. Open refuses it before writing anything, for every command: a
// reading command wrote the schema into it before, and a writing one
// would mix mnemo's tables into another program's file. Point the
// directory at the right file, or move this one away and restore
// mnemo.db from a backup.
var ErrNoSchema error = &narrowError{"engine: the database holds no mnemo schema", ErrNotDataDir}

// ErrDatabaseEncoding is matched by the error Open returns when
// Config.Postgres names a database whose encoding is not UTF8 (created
// with ENCODING 'SQL_ASCII' or 'LATIN1'): mnemo stores text as UTF-8, so it
// refuses the database before writing anything to it. The message names
// the database's encoding and how to create a UTF8 one (CREATE DATABASE
// name ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0: without a locale
// that suits UTF8, ENCODING 'UTF8' fails on a server whose default locale
// is not UTF-8).
var ErrDatabaseEncoding = pgstore.ErrEncoding

// ErrSchemaTooNew is matched by the error Open returns when the database
// (mnemo.db, or the Postgres schema) was migrated by a newer mnemo than
// this build: nothing is written to it. Upgrade mnemo to open it.
var ErrSchemaTooNew = store.ErrSchemaTooNew

// ErrWriteBusy is matched by the error of a write on SQLite (an Append,
// an erasure, a LoadContext's run claim or memctx record, a
// working-memory update, a tool call…) that waited store.BusyTimeoutMillis
// (10 s) for this process's other writers of the database file and gave
// up: one of them held the write lock that long (a long erasure or
// Vacuum), or the queue ahead was that long; or that waited SQLite's busy
// timeout (10 s) for another process holding the write lock of mnemo.db
// (a sqlite3 shell in BEGIN IMMEDIATE: SQLITE_BUSY). That write did nothing; it
// is a transient overload and may be retried (the HTTP API answers 503
// "database-busy" with Retry-After).
var ErrWriteBusy = store.ErrWriteBusy

// ErrDatabaseLocked is matched by the error of any call on SQLite, a read
// as a write, that needed a new connection to mnemo.db while another
// program held the file locked (a sqlite3 shell or a script that used it
// in PRAGMA locking_mode=EXCLUSIVE, which keeps the file until it closes):
// the connection's open waited SQLite's busy timeout (10 s) and gave up;
// Open's error matches it when the lock is held as it opens. Nothing was
// read or written through that connection. It does not match
// ErrWriteBusy (no writer of mnemo's was at fault, and a read fails so
// too). The HTTP API answers 503 "database-locked" with Retry-After; the
// call succeeds once that program closes the file.
var ErrDatabaseLocked = store.ErrDatabaseLocked

// WriteBusyTimeout is how long a write on SQLite waits for the other
// writers, this process's or another's, before it gives up with
// ErrWriteBusy: store.BusyTimeoutMillis, 10 s.
const WriteBusyTimeout = store.BusyTimeoutMillis * time.Millisecond

// ErrMigrationUnderLoad is matched by the error Open returns on Postgres
// when the schema is of an older version and sessions of older mnemo
// builds are connected to it (a *pgstore.UnderLoadError in the chain names
// each: pid, application_name, client address, version when known).
// Nothing is migrated: stop them and open again, or set
// Config.MigrateUnderLoad (docs/postgres.md, "Upgrading").
var ErrMigrationUnderLoad = pgstore.ErrMigrationUnderLoad

// ErrSchemaMigrated is matched by the error of any write on Postgres (an
// Append, an erasure, a reindex, expiry, a LoadContext's memctx record or
// run claim, a dispatch, a working-memory update, an Observe…) when a
// newer build migrated the schema while this engine was open: the write
// is refused whole, so that this build does not write rows the new schema
// would read wrongly. Close the engine and use the newer build.
var ErrSchemaMigrated = pgstore.ErrSchemaMigrated

// ErrNoVector is matched by the error Open returns when Config.Postgres
// names a database without the pgvector extension that the connecting
// role may not create (CREATE EXTENSION vector needs a role allowed to
// create it; the extension is packaged as postgresql-NN-pgvector): have
// an administrator run CREATE EXTENSION vector in the database first.
var ErrNoVector = pgstore.ErrNoVector

// ErrVectorNotOnPath is matched by the error Open returns when
// Config.Postgres's search_path leaves out the schema the pgvector
// extension is installed in (search_path=memory where vector lives in
// public): the message names that schema and the search_path to give
// (search_path=memory,public); nothing is created.
var ErrVectorNotOnPath = pgstore.ErrVectorNotOnPath

// ErrNoSuchSchema is matched by the error Open returns when the first
// schema of Config.Postgres's search_path does not exist: Postgres would
// create mnemo's tables in the next schema of the path (public, say), so
// nothing is created and the message names the schema to create (CREATE
// SCHEMA name). A path that starts with "$user" matches it only when no
// schema of the path exists (search_path=$user where the role has no
// schema of its name); the message then names the role's schema.
var ErrNoSuchSchema = pgstore.ErrNoSuchSchema

// ErrEmbedderMismatch is matched (through an *EmbedderMismatchError) by
// the error Open returns when the directory's vectors were computed by
// another embedder than Config.Embedder (and Config.SwitchEmbedder is
// false), or when its recorded embedder cannot be loaded.
var ErrEmbedderMismatch = errors.New("engine: the directory was embedded with another embedder")

// ErrLocked is matched (through a *LockedError naming the holder) by the
// error Open returns when another process holds the data directory.
var ErrLocked = errors.New("engine: data directory in use by another process")

// ErrClosed is returned by every method called after Close.
var ErrClosed = errors.New("engine: closed")

// ErrNilContext is returned by every method that takes a context when it
// is given a nil one, before it touches anything: pass
// context.Background() or a request's context.
var ErrNilContext = errors.New("engine: nil context.Context (pass context.Background())")

// ErrEraseIncomplete is returned by DeleteMessages, DeleteThread and
// DeleteResource when the erasure committed (nothing erased can be read
// back) but its physical purge did not finish: an index removal was
// deferred, the bleve merge or the WAL checkpoint failed. The purge is
// retried by the next erasure and by Open. When Close cut the purge short
// the error matches ErrClosed too.
var ErrEraseIncomplete = errors.New("engine: erasure committed but its physical purge is incomplete")

// ErrVacuumIncomplete is returned by Vacuum when it stopped (its context
// ended, or a step failed) after part of its work was done. On SQLite the
// file was rewritten (the VACUUM committed: the database is whole and
// holds everything it held) but the WAL checkpoint that writes the new
// file into DatabaseFile and truncates the WAL did not finish; the
// space it frees shows once a later checkpoint does (SQLite's own at the
// close of the last connection, or the next Vacuum), and the result is
// nil, the sizes being unknown until then. On Postgres the result lists
// the tables vacuumed before it stopped; the others were not.
var ErrVacuumIncomplete = errors.New("engine: vacuum incomplete")

// ErrEraseBusy is returned by DeleteMessages, DeleteThread and
// DeleteResource when work in flight on the erased threads or resources
// (LoadContext, a working-memory write) did not finish within
// Config.EraseWait. Nothing was erased; the erasure may be retried.
var ErrEraseBusy = errors.New("engine: erasure timed out waiting for work in flight")

// ErrObserveCancelled is returned by Observe (and logged by the background
// observer) when an erasure of the thread, or of one of its turns, cancelled
// the observer run in flight: its answer would have been derived from what
// the erasure removes. Nothing of the cancelled call was recorded;
// observing again later is safe. Observations earlier rounds of the same
// Observe stored stay (the erasure erases or invalidates those it
// reaches): Observe then lists them in its Result, and its error matches
// observe.ErrPartial too.
var ErrObserveCancelled = errors.New("engine: observation cancelled by an erasure of its thread")

// ErrQueryTooLong is matched (through a *ValidationError on the field
// "query", which also matches ErrInvalidInput) by the error Search,
// SearchMessages and LoadContext return for an explicit query longer than
// Config.Limits.MaxQueryBytes (DefaultMaxQueryBytes). Nothing is searched
// or recorded.
var ErrQueryTooLong = errors.New("engine: query too long")

// ErrAnswerTooLarge is matched (through an *AnswerTooLargeError) by the
// error SearchMessages and LoadContext return when the messages the answer
// would carry pass Config.Limits.MaxAnswerBytes (DefaultMaxAnswerBytes).
// The read stops at the message that passes the bound; nothing is
// recorded, and the same request with a smaller topK, messageRange or
// recent window may succeed. Replay's error for a run whose turns pass
// the bound (a *ReplayTooLargeError) matches it too.
var ErrAnswerTooLarge = errors.New("engine: answer too large")

// AnswerTooLargeError is the error of an answer over
// Limits.MaxAnswerBytes (ErrAnswerTooLarge for errors.Is).
type AnswerTooLargeError struct {
	// Limit is Limits.MaxAnswerBytes, in bytes.
	Limit int
	// Fields are the request fields whose lowering shrinks the answer, by
	// their JSON paths: "recall.topK", "recall.messageRange", and for
	// LoadContext "recentN". Empty when no field of the request does (see
	// Unobserved and Pending).
	Fields []string
	// Unobserved, when positive, is how many messages LoadContext's recent
	// window held because the observer has not distilled them yet
	// (ObserveConfig: the window holds the whole unobserved tail, up to
	// ObserveConfig.MaxUnobservedTokens, whatever RecentN). Lowering
	// recentN does not shrink them, so Fields does not name it: the
	// observer catching up on the thread does (Engine.Observe, `mnemo
	// observe`), and a lower ObserveConfig.MaxUnobservedTokens bounds them.
	Unobserved int
	// Observable, with Unobserved, is how many of them the observer may
	// observe: those older than its recent window (Config.RecentN) and
	// the pending turn, which it never observes. 0: even
	// observe.Options.Force observes none of them unless the observer's
	// RecentN is smaller (`mnemo observe --force --recent N`).
	Observable int
	// ObserveDue, with Unobserved, says the observer's threshold is
	// reached on the thread: the Observable turns hold
	// ObserveConfig.Threshold tokens or more, so Engine.Observe distills
	// them. When false Engine.Observe observes nothing: only
	// observe.Options.Force (`mnemo observe --force`) or a lower
	// ObserveConfig.MaxUnobservedTokens shrinks the window.
	ObserveDue bool
	// Pending, when positive, is how many messages the thread's pending
	// turn holds (the user turns no assistant answer follows yet, with the
	// tool calls made for them) when it alone passed the bound: the
	// window holds it whatever RecentN, so no field shrinks it; an answer
	// appended to the thread, or a larger Limits.MaxAnswerBytes, does.
	Pending int
}

// Error implements error.
func (e *AnswerTooLargeError) Error() string {
	switch {
	case e.Pending > 0:
		return fmt.Sprintf("engine: answer too large: the pending turn (%d messages no answer follows yet, which the recent window always holds) passes %d bytes (Limits.MaxAnswerBytes); no request field shrinks it: append the answer, or raise Limits.MaxAnswerBytes",
			e.Pending, e.Limit)
	case e.Unobserved > 0 && len(e.Fields) == 0:
		return fmt.Sprintf("engine: answer too large: the recent window passes %d bytes (Limits.MaxAnswerBytes): it holds %d messages the observer has not distilled yet, whatever recentN; %s or lower ObserveConfig.MaxUnobservedTokens",
			e.Limit, e.Unobserved, e.observeHint())
	case e.Unobserved > 0:
		return fmt.Sprintf("engine: answer too large: its messages pass %d bytes (Limits.MaxAnswerBytes); lower %s, or %s (its recent window holds %d messages the observer has not distilled yet, whatever recentN)",
			e.Limit, strings.Join(e.Fields, ", "), e.observeHint(), e.Unobserved)
	}
	return fmt.Sprintf("engine: answer too large: its messages pass %d bytes (Limits.MaxAnswerBytes); lower %s",
		e.Limit, strings.Join(e.Fields, ", "))
}

// observeHint says how observing shrinks the window: Engine.Observe when
// the observer's threshold is reached, else only with Force, and with a
// smaller RecentN when its recent window holds every unobserved turn.
func (e *AnswerTooLargeError) observeHint() string {
	switch {
	case e.ObserveDue:
		return "observe the thread (Engine.Observe)"
	case e.Observable > 0:
		return "observe the thread with observe.Options.Force (the turns it may observe are under ObserveConfig.Threshold, so Engine.Observe without Force observes nothing)"
	}
	return "observe the thread with observe.Options.Force under a smaller Config.RecentN (the observer never observes its recent window or the pending turn, and they hold every unobserved message)"
}

// Is reports ErrAnswerTooLarge.
func (e *AnswerTooLargeError) Is(target error) bool { return target == ErrAnswerTooLarge }

// ReplayTooLargeError is the error of Replay when the turns of the run's
// record (its recent window and recalled turns) pass
// Limits.MaxAnswerBytes: a run recorded before the bound, or under a
// larger one. Nothing of a replay request shrinks them (the whole prompt
// is rebuilt to check its hash, whatever the counterfactual leaves out):
// a larger bound replays the run. It matches ErrAnswerTooLarge with
// errors.Is.
type ReplayTooLargeError struct {
	// RunID is the run asked for.
	RunID string
	// Limit is Limits.MaxAnswerBytes, in bytes.
	Limit int
}

// Error implements error.
func (e *ReplayTooLargeError) Error() string {
	return fmt.Sprintf("engine: run %s cannot be replayed: its turns pass %d bytes (Limits.MaxAnswerBytes); a larger bound replays it", e.RunID, e.Limit)
}

// Is reports ErrAnswerTooLarge.
func (e *ReplayTooLargeError) Is(target error) bool { return target == ErrAnswerTooLarge }

// ErrAnswerBoundTooSmall is matched (through a *ValidationError on the
// field "Limits.MaxAnswerBytes", which also matches ErrInvalidInput) by
// the error Open returns when Config.Limits.MaxAnswerBytes is below
// Limits.MaxContentBytes (after defaults): a thread whose newest message
// is larger than the bound could load no context at all, whatever its
// request. Nothing is opened.
var ErrAnswerBoundTooSmall = errors.New("engine: answer bound below the content bound")

// ErrCreatedAtFuture is matched (through a *ValidationError on the field
// "createdAt" of a message) by an Append whose message is dated more than
// MaxCreatedAtAhead past the engine's clock. Nothing was stored.
var ErrCreatedAtFuture = errors.New("engine: createdAt in the future")

// OptionsError is the refusal of a search's recall options or query
// (Search, SearchMessages, SearchPreviews) by package recall: its text is
// recall's, and it matches both ErrInvalidInput and recall's error
// (recall.ErrInvalidOptions, recall.ErrInvalidFilter or
// recall.ErrInvalidQuery; errors.As reaches a *recall.OptionError,
// *recall.FilterError or *recall.QueryError through it).
type OptionsError struct {
	Err error // recall's error
}

// Error returns recall's text, unchanged ("recall: …").
func (e *OptionsError) Error() string { return e.Err.Error() }

// Unwrap returns recall's error and ErrInvalidInput.
func (e *OptionsError) Unwrap() []error { return []error{e.Err, ErrInvalidInput} }

// ValidationError says which message (Index, -1 for the request itself) and
// which field broke which rule. It wraps ErrInvalidInput.
type ValidationError struct {
	Index int    // message index in the request, or -1
	Field string // JSON name of the field, e.g. "toolCalls[0].arguments"
	Rule  string // what the value must be
	// Got, when set, says what the value given broke of Rule (an id's:
	// IDFault, e.g. `" " at byte 1`); the value is the caller's own.
	// "" when Rule says it already. Only an id refusal sets it (Rule is
	// then IDRule or NewIDRule, "must be …"), and Error says it so.
	Got string
	// Err, when set, is a more precise condition the error also matches
	// with errors.Is (ErrQueryTooLong, ErrCreatedAtFuture, ErrDuplicateID).
	Err error
}

// Error implements error: `engine: invalid FIELD: RULE`; with Got set
// (a refused id) `engine: FIELD RULE; got GOT`, the form the server and
// the CLI give an id refusal (`engine: messages[0].id must be 1-128
// characters of [A-Za-z0-9_.:@-], and not "." or ".." (…); got " " at
// byte 1`).
func (e *ValidationError) Error() string {
	field := e.Field
	if e.Index >= 0 {
		field = fmt.Sprintf("messages[%d].%s", e.Index, e.Field)
	}
	if e.Got != "" {
		return fmt.Sprintf("engine: %s %s; got %s", field, e.Rule, e.Got)
	}
	return fmt.Sprintf("engine: invalid %s: %s", field, e.Rule)
}

// Unwrap returns ErrInvalidInput.
func (e *ValidationError) Unwrap() error { return ErrInvalidInput }

// Is reports whether target is e.Err (ErrInvalidInput is matched through
// Unwrap).
func (e *ValidationError) Is(target error) bool { return e.Err != nil && target == e.Err }

func invalid(index int, field, rule string, args ...any) error {
	return &ValidationError{Index: index, Field: field, Rule: fmt.Sprintf(rule, args...)}
}

// ErrQuotaExceeded is returned (wrapped in a *QuotaError) by Append when
// Config.Lifecycle.Quota.Refuse is set and the append would take its
// resource or the store over a bound. Nothing was stored.
var ErrQuotaExceeded = errors.New("engine: quota exceeded")

// QuotaError says which bound an Append would have broken. It wraps
// ErrQuotaExceeded. For the store's bounds it carries no usage figure: the
// store holds other resources' data. Its Limit is for the operator: the
// server's answer to a tenant leaves a store's bound out too (with its
// own usage, the bound would tell a tenant how much the others hold).
type QuotaError struct {
	Scope      string // "resource" or "store"
	ResourceID string // the caller's resource (Scope "resource")
	Field      string // "messages" or "bytes"
	Limit      int64  // the bound, in Field's unit (messages or bytes)
	Have       int64  // what the resource would hold, in Field's unit (Scope "resource"; 0 for "store")
}

// Error implements error.
func (e *QuotaError) Error() string {
	if e.Scope == "store" {
		return fmt.Sprintf("engine: quota exceeded: the store's %s bound (%d) is reached", e.Field, e.Limit)
	}
	return fmt.Sprintf("engine: quota exceeded: resource %q would hold %d %s, bound %d", e.ResourceID, e.Have, e.Field, e.Limit)
}

// Unwrap returns ErrQuotaExceeded.
func (e *QuotaError) Unwrap() error { return ErrQuotaExceeded }

// ErrDispatchNotFound is returned by SettleDispatch when no intent was
// begun for the run and call id under the caller's resource (another
// resource's dispatch, erased or not, gets this same answer). A dispatch
// begun and then erased is ErrDispatchErased.
var ErrDispatchNotFound = errors.New("engine: dispatch not found")

// ErrDispatchErased is returned by SettleDispatch when the dispatch was
// erased after its intent was begun: its thread (DeleteThread,
// DeleteResource, expiry or eviction), or, in a thread that is kept, its
// call's or its result's message (DeleteMessages; a tool message appended
// without SettleDispatch that answered the call counts as its result).
// BeginDispatch returns it for a run and call id whose dispatch was erased
// from a kept thread: an erased dispatch is not begun again under its run
// (that would store its call again, or act on it again, as if nothing had
// been erased); begin it under another run id. Nothing is stored. The
// journal keeps no text of an erased dispatch, only a hash of its run and
// call ids (journal.ScopeDispatchErased).
var ErrDispatchErased = errors.New("engine: the dispatch was erased")

// ErrDispatchAnswered is returned by SettleDispatch when the dispatch was
// never settled but a tool message already answers its call: one appended
// with Append, or the settlement of another dispatch begun on the same
// call (a database written before BeginDispatch refused that). The outcome
// shown to the model is that message; a settlement would be a second
// result for the call, so nothing is stored. BeginDispatch returns it when
// the stored call it names is already answered by a tool message and no
// other run's dispatch holds it (that is ErrCallDispatched): a dispatch of
// it could never be settled.
var ErrDispatchAnswered = errors.New("engine: the dispatch's call is already answered")

// ErrCallDispatched is matched (through a *CallDispatchedError) by the
// error BeginDispatch returns when another run already began a dispatch of
// the same call (the same stored message and call id) and no erasure has
// removed it since: whether that dispatch is pending (outcome unknown),
// settled, or answered by a tool message appended without a settlement. A
// call has one result (the pairing rule), so a second run's dispatch could
// never be settled (ErrDispatchAnswered). Nothing is stored. Settle the
// pending dispatch under its own run (Unsettled, reconcile, SettleDispatch);
// to act again after a known outcome, make a new call. Beginning again
// under the run that holds the call returns its dispatch (idempotence).
var ErrCallDispatched = errors.New("engine: the call is already dispatched by another run")

// CallDispatchedError is the refusal of ErrCallDispatched: call CallID of
// message MessageID is held by the dispatch of run RunID, which is State:
// "pending", "settled" (ResultID is the settlement's tool message) or
// "answered" (ResultID is the tool message appended without a settlement).
type CallDispatchedError struct {
	// CallID is the tool call's id.
	CallID string
	// MessageID is the assistant message of the dispatch holding the call.
	MessageID string
	// RunID is the run whose dispatch holds the call.
	RunID string
	// State is "pending", "settled" or "answered".
	State string
	// ResultID is the tool message holding the result ("" while pending).
	ResultID string
}

// Error implements error: the call, the dispatch holding it and what to do.
func (e *CallDispatchedError) Error() string {
	head := fmt.Sprintf("engine: call %q of message %q is already dispatched by run %q", clip(e.CallID, 64), e.MessageID, e.RunID)
	if e.State == "pending" {
		return head + ", whose outcome is unknown (pending): settle that dispatch under its run (SettleDispatch) instead; " +
			"a call has one result, so a second run's dispatch of it could never be settled"
	}
	return head + fmt.Sprintf(", %s by tool message %q: its outcome is recorded there; to act again, make a new call", e.State, e.ResultID)
}

// Unwrap returns ErrCallDispatched.
func (e *CallDispatchedError) Unwrap() error { return ErrCallDispatched }

// ErrSalvageInterrupted is returned by Open when a salvage (Salvage) was
// interrupted while it swapped the salvaged database in: run Salvage
// again, which finishes it. The error names where the damaged original is
// kept.
var ErrSalvageInterrupted = errors.New("engine: a salvage of this data directory was interrupted while it swapped the database files")

// ErrNoSpace is returned by a write of an Engine on SQLite (Append,
// SyncIndexes, any transaction's commit) and by Open when the data
// directory's disk had no room: the error names the disk and says that
// nothing committed is lost (the refused transaction is rolled back). It
// is returned by Salvage when a write found no room on the
// disk of the data directory (ENOSPC, a quota, SQLITE_FULL), and by Backup
// when one found none on the disk of its destination (the partial copy is
// removed, the data directory untouched). Salvage's error
// says what was done: before the salvaged database was put in place,
// nothing (make room and salvage again); after, the salvaged database is
// in place and the damaged one kept (make room and reindex).
var ErrNoSpace = errors.New("engine: no space left")

// ErrIndexUnavailable is matched by Engine.IndexUnavailable's error: the
// lexical index was found damaged and its recovery has not run yet, or a
// damaged or removed lexical index was closed and a new one could not be
// opened yet (a full disk, for one); the engine recovers in the
// background. The data in mnemo.db is intact.
var ErrIndexUnavailable = errors.New("engine: the recall indexes are unavailable")

// ErrBackupExists is returned by Backup when its destination exists and is
// not an empty directory (a file, a link, a directory with entries): a
// backup never overwrites anything. The error names the destination.
var ErrBackupExists = errors.New("engine: the backup's destination exists")

// ErrWALDamaged is returned by Backup when the data directory's
// write-ahead log, open in no process, holds commits past a damaged
// frame: SQLite's read would leave them out of the copy without a word.
// Backup, a reader, neither keeps nor repairs the log: the next Open does
// (any command, e.g. mnemo check: Engine.WALDamage), then back up again;
// in a directory this process cannot write, the message says to copy it
// (cp -a), open the copy and back that up.
var ErrWALDamaged = errors.New("engine: the write-ahead log is damaged")

// ErrBackupPostgres is returned by Backup with Config.Postgres set: a
// Postgres database is backed up with Postgres's own tools (pg_dump, a base
// backup with pg_basebackup; docs/postgres.md).
var ErrBackupPostgres = errors.New("engine: backup copies a SQLite data directory; back up a Postgres database with its own tools (pg_dump, or a base backup with pg_basebackup and WAL archiving; see docs/postgres.md)")

// ErrSalvagePostgres is returned by Salvage with Config.Postgres set: a
// Postgres database is recovered with Postgres's own tools (a base backup,
// point-in-time recovery), not file by file.
var ErrSalvagePostgres = errors.New("engine: salvage works on a SQLite data directory; recover a Postgres database with its own tools (restore a base backup, point-in-time recovery)")

// ErrDispatchPending is matched (through a *DispatchPendingError) by the
// error Append and BeginDispatch return when a new assistant message makes
// a call whose id an earlier dispatch of the thread still waits on: begun,
// not settled, and no tool message answering it. A result answers the
// nearest earlier call with its id, so that dispatch's late settlement
// would answer the new call instead. Nothing is stored; settle the pending
// dispatch first (SettleDispatch, with the outcome found by reconciling, or
// an Error when it is abandoned), or give the new call another id.
var ErrDispatchPending = errors.New("engine: a dispatch with this call id is pending")

// DispatchPendingError is the refusal of ErrDispatchPending: message Index
// of the request makes call CallID while the dispatch (RunID, CallID),
// made at seq Seq of the thread, is pending.
type DispatchPendingError struct {
	// Index is the request message (0-based) that makes the call.
	Index int
	// CallID is the tool call's id.
	CallID string
	// RunID is the run of the pending dispatch.
	RunID string
	// Seq is the seq, in the thread, of the message that made the pending dispatch.
	Seq int64
}

// Error implements error: the call, the pending dispatch and what to do.
func (e *DispatchPendingError) Error() string {
	return fmt.Sprintf("engine: messages[%d] makes call %q while the dispatch of call %q in run %q (seq %d) is pending: "+
		"its settlement would answer the new call; settle it first (SettleDispatch) or give the new call another id",
		e.Index, clip(e.CallID, 64), clip(e.CallID, 64), e.RunID, e.Seq)
}

// Unwrap returns ErrDispatchPending.
func (e *DispatchPendingError) Unwrap() error { return ErrDispatchPending }

// ErrCallOpen is matched (through a *CallOpenError) by the error Append
// and BeginDispatch return when a new assistant message makes a tool call
// whose id an earlier call of the thread, not answered yet, makes: a tool
// result answers the nearest earlier call with its id (the pairing rule),
// so the earlier call's result would answer the new call, and the new
// call's result would be an orphan. Two agent loops on one thread with a
// model server numbering its calls per answer (call_0) did that silently.
// Nothing is stored; append the earlier call's result first (a tool
// message; an error text when the call was abandoned), or give the new
// call another id. A call id whose earlier calls are all answered may be
// made again.
var ErrCallOpen = errors.New("engine: a call with this id is not answered yet")

// CallOpenError is the refusal of ErrCallOpen: call CallIndex of request
// message Index makes call CallID while an earlier call with that id is
// not answered: the one stored at seq Seq of the thread, or (Seq 0) the
// one of request message Earlier.
type CallOpenError struct {
	// Index is the request message (0-based) making the new call.
	Index int
	// CallIndex is the new call's index in that message's ToolCalls.
	CallIndex int
	// CallID is the tool call's id.
	CallID string
	// Seq is the thread seq of the unanswered call; 0 when it is in the request.
	Seq int64
	// Earlier is the request message making the unanswered call when Seq is 0.
	Earlier int
}

// Field is the request field of the new call's id: messages[i].toolCalls[j].id.
func (e *CallOpenError) Field() string {
	return fmt.Sprintf("messages[%d].toolCalls[%d].id", e.Index, e.CallIndex)
}

// Error implements error: the new call, the unanswered one and what to do.
func (e *CallOpenError) Error() string {
	where := fmt.Sprintf("seq %d of the thread", e.Seq)
	if e.Seq == 0 {
		where = fmt.Sprintf("messages[%d] of this request", e.Earlier)
	}
	return fmt.Sprintf("engine: %s: call %q is made while the call %q made at %s is not answered: "+
		"its result would answer the new call; append that call's result first, or give the new call another id",
		e.Field(), clip(e.CallID, 64), clip(e.CallID, 64), where)
}

// Unwrap returns ErrCallOpen.
func (e *CallOpenError) Unwrap() error { return ErrCallOpen }

// ErrDispatchSettled is matched by the error SettleDispatch returns when
// the dispatch is settled already with another outcome (another result or
// error text): a call has one result, and the stored one stands. It
// matches ErrConflict too. Nothing is stored.
var ErrDispatchSettled = errors.New("engine: the dispatch is settled with another outcome")

// settledError is the refusal of ErrDispatchSettled for call callID of run runID.
type settledError struct{ callID, runID string }

// Error implements error: the call, the run and why nothing is stored.
func (e *settledError) Error() string {
	return fmt.Sprintf("engine: call %q of run %q is settled already with another outcome: a call has one result, so the stored settlement stands",
		clip(e.callID, 64), e.runID)
}

// Is matches ErrDispatchSettled and ErrConflict.
func (e *settledError) Is(target error) bool {
	return target == ErrDispatchSettled || target == ErrConflict
}
