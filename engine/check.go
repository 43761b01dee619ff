package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// CheckOptions tunes Check. The zero value runs SQLite's quick check.
type CheckOptions struct {
	// Full runs SQLite's full "PRAGMA integrity_check" (which also verifies
	// that every index entry matches its row, and so reads every index:
	// slower) instead of "PRAGMA quick_check" (page and b-tree structure,
	// record formats, NOT NULL and CHECK constraints), and then reads every
	// message to compare it with its stored digest (SQLite checks no
	// bytes of a value). On Postgres only the digests are read.
	Full bool
	// Prechecked says that CheckFile ran these database checks (with the
	// same Full) on the file before the engine was opened, and found
	// nothing: CheckWith does not run them again. It still runs the full
	// ones when the indexes disagree with the database.
	Prechecked bool
}

// CheckError lists what Check found wrong. It wraps ErrInconsistent; when
// SQLite's own integrity check failed (Database is not empty) it also
// matches ErrDatabaseCorrupt.
type CheckError struct {
	// Database holds SQLite's integrity-check findings, verbatim (at most
	// 100 of them: DatabaseCapped says when the check
	// stopped there). Non-empty means the authority itself is
	// damaged: restore the database from a backup.
	Database []string
	// Problems holds the disagreements between the store and its derived
	// indexes (and store invariants such as gap-free seqs), which
	// `mnemo reindex` (Engine.Reindex) repairs when the database is sound.
	Problems []string
	// Rebuilt is where the lexical index went when Check found it damaged
	// (reading every document): it was quarantined there and rebuilt from
	// the database before the comparison (Problems lists it too). "" when
	// it was sound.
	Rebuilt string
	// Snapshots names the shard snapshot files (of the index's snapshot
	// directory) Check found damaged and deleted (Problems lists them
	// too): derived files, built again from the database on the next load
	// of their resource. Nil when every one was sound.
	Snapshots []string
	// Reembedding holds the lines of Problems about damaged stored
	// embeddings of the configured embedder, one for each kind of damage
	// found (the wrong length; a NaN or ±Inf value): derived data Check
	// has handed back for embedding again, so reindex is not needed. A
	// NaN or ±Inf one is deleted and queued at once; one of the wrong
	// length is marked for the next Open, which deletes and queues it
	// before any search (the schema's triggers see only damage written
	// through SQLite). The queue is drained by whatever keeps the engine
	// open long enough: a server, or the next Check, which drains first.
	// Nil when none was found.
	Reembedding []string
	// WAL holds one finding for each copy of a damaged write-ahead log
	// kept in the data directory because commits after the damage could
	// not be applied: an Open's (mnemo.db-wal.damaged-<UTC time>) or a
	// salvage's, the log of the damaged database it kept
	// (mnemo.db.damaged-<UTC time>-wal). The database is sound but lacks
	// them. It names the copy, the damaged
	// frames and the commits not applied. Such a copy stays a finding
	// until it is deleted (a log repaired exactly is none). Nil when there
	// is none.
	WAL []string
}

// DatabaseCapped reports whether Database holds as many findings as the
// database checks report at most (100: SQLite's
// integrity check stops there, and so does the digests' check): the
// damage may go further, so there are at least that many.
func (e *CheckError) DatabaseCapped() bool { return len(e.Database) >= maxDatabaseProblems }

// Is reports ErrDatabaseCorrupt when SQLite's integrity check failed, or
// commits of a damaged write-ahead log were not applied (WAL).
func (e *CheckError) Is(target error) bool {
	return target == ErrDatabaseCorrupt && (len(e.Database) > 0 || len(e.WAL) > 0)
}

// Error implements error; it lists up to ten problems ("; and at least N
// more" when the database's findings were capped: DatabaseCapped).
func (e *CheckError) Error() string {
	ps := append(prefixed("wal: ", e.WAL), e.Problems...)
	if len(e.Database) > 0 {
		ps = append(append([]string{}, prefixed("database: ", e.Database)...), ps...)
	}
	more, atLeast := "", ""
	if e.DatabaseCapped() {
		atLeast = "at least "
	}
	if len(ps) > 10 {
		ps, more = ps[:10], fmt.Sprintf("; and %s%d more", atLeast, len(ps)-10)
	}
	return fmt.Sprintf("engine: inconsistent: %s%s", strings.Join(ps, "; "), more)
}

func prefixed(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// maxDatabaseProblems bounds the findings SQLite's integrity check reports.
const maxDatabaseProblems = 100

// Unwrap returns ErrInconsistent.
func (e *CheckError) Unwrap() error { return ErrInconsistent }

// Check is CheckWith(ctx, CheckOptions{}): SQLite's quick check and the
// comparison of the store with its derived indexes. It returns a
// *CheckError (errors.Is ErrInconsistent) listing the problems, or nil.
func (e *Engine) Check(ctx context.Context) error {
	return e.CheckWith(ctx, CheckOptions{})
}

// CheckWith verifies the database and its derived indexes. On Postgres
// (Config.Postgres) SQLite's file checks do not apply: the comparisons
// below run, with the BM25 statistics', and the digests' with opts.Full or
// when the rest found a problem. First SQLite's
// own integrity check runs on the database file (quick_check, or
// integrity_check and the digests with opts.Full; the full checks also run
// when the quick one passed but the indexes disagree with the database);
// its findings go to CheckError.Database.
// Then, after draining the outbox: seqs are 1…n without gaps in every
// thread and match the thread's counters; every stored message is in the
// lexical index and has an embedding of the right length by the configured
// embedder, and neither index holds anything else. Messages whose embedding is still
// being retried are reported too: they are not yet in the vector index.
// Every shard snapshot file is read whole and one that fails its checksums
// is deleted and reported (recall.Index.CheckSnapshots: a load serves a
// snapshot before its vector part is verified).
//
// It returns a *CheckError (errors.Is ErrInconsistent, and
// ErrDatabaseCorrupt when SQLite's check failed) listing the problems, or
// nil. When the database is damaged, a step that cannot read it is listed
// as a problem rather than returned as the error.
func (e *Engine) CheckWith(ctx context.Context, opts CheckOptions) error {
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	if e.onPostgres() {
		return e.checkPostgres(ctx, opts) // check_postgres.go
	}
	var dbProblems []string
	var err error
	full := opts.Full // the full database checks ran (here or in CheckFile)
	if !opts.Prechecked {
		if dbProblems, err = e.databaseCheck(ctx, opts.Full); err != nil {
			return err
		}
	}
	problems, rebuilt, reembed, err := e.checkIndexes(ctx, opts.Full)
	if len(dbProblems) == 0 && !opts.Full && (err != nil || len(problems) > 0) {
		// The indexes disagree with a database that passed the quick
		// check, which does not compare SQL indexes with their rows nor
		// read a value's bytes: a garbled row can pass it and show up only
		// as a disagreement. The full checks (those of opts.Full: the
		// integrity check and the digests) tell a damaged database, which
		// reindex cannot repair, from indexes that are merely behind.
		found, ferr := e.databaseCheck(ctx, true)
		if ferr != nil {
			return ferr
		}
		dbProblems, full = found, true
	}
	if err != nil {
		if len(dbProblems) == 0 {
			return err
		}
		problems = append(problems, "could not compare the indexes: "+err.Error())
	}
	snaps, err := e.checkSnapshots(ctx)
	if err != nil {
		return err
	}
	if len(snaps) > 0 {
		failed := fmt.Sprintf("%d shard snapshot files failed their checksums", len(snaps))
		if len(snaps) == 1 {
			failed = "1 shard snapshot file failed its checksums"
		}
		problems = append(problems, fmt.Sprintf("%s (%s): deleted; each resource's next load builds its shard from the database", failed, strings.Join(snaps, ", ")))
	}
	wal := keptWALFindings(e.dir) // wal_damage.go
	if err := e.noteCheckedFile(ctx, full, len(dbProblems)); err != nil {
		return err
	}
	if len(dbProblems) > 0 || len(problems) > 0 || len(wal) > 0 {
		return &CheckError{Database: dbProblems, Problems: problems, Rebuilt: rebuilt, Snapshots: snaps, Reembedding: reembed, WAL: wal}
	}
	return nil
}

// databaseCheck runs SQLite's quick_check (or integrity_check when full)
// and, when full and it passed, checkDigests; it returns the findings.
func (e *Engine) databaseCheck(ctx context.Context, full bool) ([]string, error) {
	found, err := e.integrityCheck(ctx, full)
	if err != nil || len(found) > 0 || !full {
		return found, err
	}
	return e.checkDigests(ctx)
}

// checkDigests reads every stored message and returns a finding, naming
// its thread and seq (never its text), for each one that is garbled
// (msgstore.GarbledMessages: its text does not match its stored digest, or
// is not UTF-8, or its metadata or tool calls are not JSON), at most
// maxDatabaseProblems. SQLite checks no bytes of a value: a damaged
// overflow page (the rest of a long text) passes its integrity check and
// reads back as a whole row with garbled text.
func (e *Engine) checkDigests(ctx context.Context) ([]string, error) {
	return digestFindings(ctx, e.ms)
}

// digestFindings is checkDigests on ms.
func digestFindings(ctx context.Context, ms *msgstore.Store) ([]string, error) {
	bad, err := ms.GarbledMessages(ctx, maxDatabaseProblems)
	if err != nil {
		return nil, fmt.Errorf("engine: check: digests: %w", err)
	}
	var out []string
	for _, g := range bad {
		what := map[string]string{"digest": "its text does not match its stored digest", "utf-8": "a text is not UTF-8", "json": "its metadata or tool calls are not JSON"}[g.Why]
		out = append(out, fmt.Sprintf("message %d of thread %s: %s (garbled)", g.Seq, g.ThreadID, what))
	}
	return out, nil
}

// checkSnapshots reads every shard snapshot file whole and deletes those
// that fail their checksums (recall.Index.CheckSnapshots), returning their
// names: a load serves a snapshot before its vector part is verified, so a
// damaged one found here is gone before any search reads it.
func (e *Engine) checkSnapshots(ctx context.Context) ([]string, error) {
	ix, use := e.idx.acquire() // Reindex waits for the check (indexuse.go)
	if ix == nil {
		return nil, nil
	}
	defer use.release()
	_, bad, err := ix.CheckSnapshots(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: check: %w", err)
	}
	return bad, nil
}

// integrityCheck runs SQLite's quick_check (or integrity_check when full)
// and returns its findings; nil when it answers "ok". An error that keeps
// the check from running at all (a file that is no database any more) is a
// finding too.
func (e *Engine) integrityCheck(ctx context.Context, full bool) ([]string, error) {
	out, err := store.IntegrityCheck(ctx, e.db, full, maxDatabaseProblems)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("engine: check: %w", err)
	}
	return out, err
}

// checkIndexes compares the store with its derived indexes and tables
// (see CheckWith; full recomputes the derived tables, checkDerivedTables)
// and returns the problems found, with those about damaged embeddings
// (handed back for embedding again) also in reembed.
func (e *Engine) checkIndexes(ctx context.Context, full bool) (problems []string, rebuilt string, reembed []string, err error) {
	if err := e.SyncIndexes(ctx); err != nil {
		return nil, "", nil, err
	}
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	addReembed := func(format string, a ...any) {
		add(format, a...)
		reembed = append(reembed, problems[len(problems)-1])
	}
	if err := e.checkCounters(ctx, add); err != nil {
		return nil, "", nil, err
	}
	if err := e.checkDispatches(ctx, add); err != nil {
		return nil, "", nil, err
	}
	if err := e.checkDerivedTables(ctx, full, add); err != nil {
		return nil, "", nil, err
	}
	rebuilt, err = e.checkDerived(ctx, add, addReembed)
	if err != nil {
		return nil, "", nil, err
	}
	return problems, rebuilt, reembed, nil
}

// checkCounters adds a problem for every thread whose counters disagree
// with its messages: seqs with gaps, message_count, bytes.
func (e *Engine) checkCounters(ctx context.Context, add func(string, ...any)) error {
	// Erased seqs leave tombstones (erase.go), and seqs a salvage lost
	// records of their loss (salvage.go): stored + erased + lost must
	// cover 1..last_seq exactly.
	err := e.ms.ThreadSeqs(ctx, ScopeErased, journal.ScopeLost, func(t msgstore.ThreadSeqs) {
		n, lo, hi, last := t.Stored, t.MinSeq, t.MaxSeq, t.LastSeq
		if n > 0 && (lo < 1 || hi > last) || n+t.Erased+t.Lost != last {
			add("thread %s: seqs %d..%d for %s, %d erased and %d lost to a salvage, last_seq %d (gap)", t.ID, lo, hi, count(n, "message", "messages"), t.Erased, t.Lost, last)
		}
		if t.MessageCount != n {
			add("thread %s: message_count %d, %s stored", t.ID, t.MessageCount, count(n, "message", "messages"))
		}
	})
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	// The byte counters quotas read (lifecycle.go) match the messages.
	wrong, err := e.ms.WrongThreadBytes(ctx)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	for _, t := range wrong {
		add("thread %s: bytes %d, its messages hold %d", t.ID, t.Have, t.Want)
	}
	return nil
}

// checkDispatches adds a problem for every dispatch that does not name its
// stored call, or, settled, its stored result (dispatch.go; erasure
// deletes a dispatch with either).
func (e *Engine) checkDispatches(ctx context.Context, add func(string, ...any)) error {
	dangling, err := journal.DanglingDispatches(ctx, e.db)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	for _, d := range dangling {
		add("dispatch %s/%s: its call or result message is not stored", d.RunID, d.CallID)
	}
	return nil
}

// checkDerived compares the stored messages with the lexical index (first
// rebuilding it when it is damaged, then reporting where it went) and with
// the stored embeddings, and reports pending outbox rows and damaged
// embeddings (with reembed: checkDamaged queues them).
func (e *Engine) checkDerived(ctx context.Context, add, reembed func(string, ...any)) (rebuilt string, err error) {
	stored, err := e.ms.MessageIDs(ctx)
	if err != nil {
		return "", fmt.Errorf("engine: check: %w", err)
	}
	if e.onPostgres() {
		return "", e.checkPostgresDerived(ctx, stored, add, reembed) // check_postgres.go
	}
	ix := e.idx.index()
	if ix == nil {
		add("indexes are not open")
		return "", nil
	}
	lex, err := e.lexicalIDs(ctx)
	if isDamage(err) {
		// A segment's checksum or reading every document found damage:
		// quarantine and rebuild (lexical_damage.go), report it, and
		// compare with the rebuilt index.
		q, rerr := e.rebuildDamaged(ctx)
		if rerr != nil {
			return "", fmt.Errorf("engine: check: %w (after: %v)", rerr, err)
		}
		rebuilt = q
		add("the lexical index was damaged (%v): quarantined to %s and rebuilt from the database", err, q)
		if ix = e.idx.index(); ix == nil {
			add("indexes are not open")
			return rebuilt, nil
		}
		lex, err = e.lexicalIDs(ctx)
	}
	if err != nil {
		return "", fmt.Errorf("engine: check: %w", err)
	}
	diff(stored, lex, "lexical index", add)
	vec, err := e.ms.EmbeddedIDs(ctx, ix.Embedder().ID())
	if err != nil {
		return "", fmt.Errorf("engine: check: %w", err)
	}
	diff(stored, vec, "vector index ("+ix.Embedder().ID()+")", add)
	// Pending rows are counted before checkDamaged queues its own.
	pending, err := e.ms.PendingOutbox(ctx)
	if err != nil {
		return "", fmt.Errorf("engine: check: %w", err)
	}
	if pending > 0 {
		add("%s still pending (retrying after failures)", count(pending, "outbox row", "outbox rows"))
	}
	if err := e.checkDamaged(ctx, ix.Embedder(), reembed); err != nil { // damaged.go
		return "", err
	}
	return rebuilt, nil
}

// diff reports messages missing from an index and index entries that are
// not stored messages.
func diff(stored, indexed map[string]bool, what string, add func(string, ...any)) {
	missing, orphans := 0, 0
	var exMissing, exOrphan string
	for id := range stored {
		if !indexed[id] {
			missing++
			exMissing = id
		}
	}
	for id := range indexed {
		if !stored[id] {
			orphans++
			exOrphan = id
		}
	}
	if missing > 0 {
		add("%s missing from the %s (e.g. %s)", count(missing, "stored message", "stored messages"), what, exMissing)
	}
	if orphans > 0 {
		if orphans == 1 {
			add("1 entry in the %s is not a stored message (e.g. %s)", what, exOrphan)
		} else {
			add("%d entries in the %s are not stored messages (e.g. %s)", orphans, what, exOrphan)
		}
	}
}

// lexicalIDs verifies the checksum of every segment file of the open
// lexical index and lists its document ids (none when no index is open).
// It holds a use of the index meanwhile (indexuse.go): a Reindex waits for
// it instead of closing the index under it.
func (e *Engine) lexicalIDs(ctx context.Context) (map[string]bool, error) {
	ix, use := e.idx.acquire()
	if ix == nil {
		return nil, nil
	}
	defer use.release()
	if err := ix.Lexical().VerifySegments(ctx); err != nil {
		return nil, err
	}
	return ix.Lexical().IDs(ctx)
}

// count is n followed by one when n is 1, else by many: "1 outbox row",
// "0 outbox rows", "2 entries". Check's findings count with it.
func count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
