package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/salvage"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// SalvageOptions tunes Salvage. The zero value salvages only a database
// that fails SQLite's integrity check.
type SalvageOptions struct {
	// Force salvages a database that passes SQLite's integrity check too
	// (its rows are copied to a new file all the same, the old one kept).
	Force bool
}

// LostRange is a run of consecutive seqs of one thread that a salvage
// could not recover: their messages were on damaged pages. Check counts
// them as known losses, not gaps; appends continue after them.
type LostRange = journal.LostRange

// SalvageTable is what Salvage did with one table of the database.
type SalvageTable struct {
	// Name is the table's name ("messages", "threads", ...).
	Name string `json:"name"`
	// Kept counts the rows of the salvaged database.
	Kept int64 `json:"kept"`
	// Unreadable lists the rowid ranges ([from, to], to math.MaxInt64 when
	// the damage reaches the table's end) SQLite could not read and no
	// intact leaf page of the file held: their rows, if any, are lost. Exact counts of lost messages are in
	// SalvageReport.Lost.
	Unreadable [][2]int64 `json:"unreadable,omitempty"`
	// Invalid counts rows read but refused by the schema (a duplicate
	// key, a NULL, a value of the wrong type: garbled by the damage).
	Invalid int64 `json:"invalid,omitempty"`
	// FromPages counts the rows kept (in Kept) that SQLite's walk of the
	// table did not return, read from its leaf pages: those below a
	// damaged interior page, and those of a leaf whose cell count was
	// garbled (read by its pointer array when that tiles the page). Rows
	// from pages on the freelist, which may hold erased rows, are never
	// read.
	FromPages int64 `json:"fromPages,omitempty"`
	// Garbled counts rows read whole but dropped because a value is not
	// what mnemo writes (text that is not UTF-8, a JSON column that is not
	// JSON, a vector that is not one) or, for messages, their text does
	// not match their stored digest: a damaged overflow page (SQLite checks
	// no content), or a large tool result whose full text was lost. Lost
	// messages' seqs are in SalvageReport.Lost.
	Garbled int64 `json:"garbled,omitempty"`
	// Redigested counts messages kept (in Kept) whose stored digest was
	// damaged while their text reads whole: the digest agreed with the
	// text's on at least 48 of its 64 hex digits, in place, so the damage
	// hit the digest's bytes, not the text; the digest is recomputed.
	Redigested int64 `json:"redigested,omitempty"`
	// Orphans counts rows read but dropped because what they belong to
	// was lost (the embedding of a lost message, an observation of a lost
	// thread, the history of a lost working-memory state, a dispatch
	// whose call was lost, …).
	Orphans int64 `json:"orphans,omitempty"`
	// Missing is set when the damaged file's schema has no such table.
	Missing bool `json:"missing,omitempty"`
}

// SalvageReport is what Salvage did.
type SalvageReport struct {
	// Dir is the data directory (absolute).
	Dir string `json:"dir"`
	// Sound is set when the database passed SQLite's integrity check and
	// Force was not: nothing was done (run Check, or Reindex, instead).
	Sound bool `json:"sound"`
	// Findings are the notes of the fields of page 1 the salvage repaired
	// on its copy (salvage.FixHeader: "the file header's page size
	// (offset 16) said …"), first, since they are the cause and the rest
	// their consequences, then the integrity check's findings on the
	// damaged file (at most 100). The notes came last, under the text
	// report's "… and 96 more" (readme71 F6).
	Findings []string `json:"findings,omitempty"`
	// Damaged is where the damaged database file was kept (with its -wal
	// and -shm beside it, suffixed alike): mnemo.db.damaged-<UTC time>.
	Damaged string `json:"damaged,omitempty"`
	// KeptIndex is where the indexes derived from the damaged database
	// (its index directory: the lexical index and the shard snapshots)
	// were moved: Damaged + "-index", beside it; "" when the directory had
	// none. A shard snapshot holds the text, id, thread, seq, role, name,
	// metadata and time of each message of a large resource (not its tool
	// calls), so it may be the only other copy of messages this salvage
	// lost; none is restored from it. Like Damaged it may hold erased
	// text and no erasure reaches it: delete it once the salvage is
	// judged complete.
	KeptIndex string `json:"keptIndex,omitempty"`
	// SalvagedAt is the salvage's time (UTC), recorded with each lost seq.
	SalvagedAt time.Time `json:"salvagedAt"`
	// Tables has one entry per table, by name.
	Tables []SalvageTable `json:"tables,omitempty"`
	// ThreadsRebuilt counts threads whose row was lost and written again
	// from their messages (title and metadata are lost).
	ThreadsRebuilt int `json:"threadsRebuilt,omitempty"`
	// Lost lists the seqs of messages this salvage found lost, by thread.
	Lost []LostRange `json:"lost,omitempty"`
	// MarkersLost lists, by thread, the seqs found neither stored nor
	// marked erased or lost when the journal lost rows while the messages
	// table was read and kept whole: no message was lost, so their markers
	// (an erasure's tombstone, or an earlier salvage's record of a loss)
	// were among the journal's lost rows. They are marked erased again
	// (SalvagedAt is this salvage's time) and are not in Lost. When
	// messages were lost too, such a seq cannot be told from a lost
	// message's and is in Lost.
	MarkersLost []LostRange `json:"markersLost,omitempty"`
	// UncountedMessages lists the rowid ranges of the messages table
	// ([from, to], as SalvageTable.Unreadable: to math.MaxInt64 when the
	// damage reaches the table's end; [1, math.MaxInt64] when the table
	// was missing) that the salvage could not read while the threads
	// table lost rows too (or was missing). Lost is counted against the
	// threads' last seqs, so a thread whose row was lost with its last
	// messages, or with all of them, loses messages no range in Lost
	// lists: how many these ranges held is unknown, and the damaged file
	// (Damaged) is the only copy of them. Empty when every loss is
	// counted in Lost.
	UncountedMessages [][2]int64 `json:"uncountedMessages,omitempty"`
	// Resumed is set when this salvage finished one interrupted after its
	// salvaged file was put in place (Open's ErrSalvageInterrupted): it
	// rebuilt the indexes and checked; Findings and Tables are empty
	// (that salvage's report was lost) and Lost lists every known loss.
	// An interruption before that point is undone and the salvage done
	// again.
	Resumed bool `json:"resumed,omitempty"`
	// Problems is what Check still reports after the indexes were rebuilt
	// (nil: the directory checks ok, known losses aside). The kept log of
	// a WAL not repaired is no Problem (WAL says what it lacks), but
	// Check names it (CheckError.WAL) until it is deleted.
	Problems []string `json:"problems,omitempty"`
	// WAL is set when the write-ahead log of the copy salvaged held
	// commits past a damaged frame: with WAL.Repaired they were all
	// salvaged (the copy's log was repaired exactly); without, its
	// CommitsNotApplied commits are not in the salvaged database but only
	// in the damaged file's log, WAL.Kept (Damaged + "-wal"; empty when
	// nothing was swapped: the log is then still mnemo.db-wal, and the
	// next Open keeps it as mnemo.db-wal.damaged-<UTC time>). With
	// WAL.SetAside the directory's -shm said a checkpoint had copied frames
	// past the log's valid prefix into mnemo.db: the copy was salvaged
	// without its log (applying the prefix would have rolled pages back),
	// and only the FramesNotApplied frames after AppliedThroughFrame, if
	// any, are not in the salvaged database (WALDamage.Lost). Nil when the
	// log was sound or absent.
	WAL *WALDamage `json:"wal,omitempty"`
}

// LostMessages is the number of messages Lost counts.
func (r *SalvageReport) LostMessages() int64 {
	var n int64
	for _, l := range r.Lost {
		n += l.ToSeq - l.FromSeq + 1
	}
	return n
}

// Salvage recovers what is readable of the damaged database of the data
// directory cfg.Dir (SQLite only: ErrSalvagePostgres otherwise; a
// directory without a database: ErrNotDataDir). It takes the directory's
// lock as Open does (a *LockedError when another process holds it), reads
// a copy of mnemo.db (and its -wal) and writes every row it can read into
// a new database of mnemo's schema: rows whose owner
// was lost are dropped, thread counters recomputed, and the seqs of lost
// messages recorded as known losses (LostRange; Check accepts them,
// appends continue after them). Only when that file is complete does it
// take the place of mnemo.db; the damaged file is kept, unmodified, as
// mnemo.db.damaged-<UTC time> (SalvageReport.Damaged), and the index
// directory derived from it is moved beside it as
// mnemo.db.damaged-<UTC time>-index (SalvageReport.KeptIndex: its shard
// snapshots may hold the text of lost messages). Then it opens the
// engine with cfg, rebuilds the indexes (Reindex) and runs Check.
//
// A database that passes SQLite's integrity check is left alone
// (SalvageReport.Sound) unless opts.Force. When ctx ends before the swap
// nothing in the directory has changed; after it, the salvaged database
// is in place, its indexes moved aside (the next Open rebuilds them), and
// the error says to run reindex. The damaged copy and the kept index may
// still hold erased text: delete them once the salvage is judged complete.
func Salvage(ctx context.Context, cfg Config, opts SalvageOptions) (*SalvageReport, error) {
	if ctx == nil {
		return nil, ErrNilContext
	}
	if cfg.Postgres != "" {
		return nil, ErrSalvagePostgres
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil || cfg.Dir == "" {
		return nil, invalid(-1, "Dir", "the data directory is required")
	}
	if _, err := os.Stat(filepath.Join(dir, DatabaseFile)); err != nil {
		return nil, notDataDir(dir, err)
	}
	if err := notRegularDatabase(dir); err != nil { // engine.go
		return nil, err
	}
	lock, err := lockDir(ctx, dir, cfg.holder(), cfg.lockWait())
	if err != nil {
		return nil, err
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	removeStaging(dir)
	rep := &SalvageReport{Dir: dir, SalvagedAt: now().UTC().Truncate(time.Millisecond)}
	kept, resumed, err := resumeSwap(dir) // salvage_swap.go
	if err != nil {
		lock.release()
		return rep, err
	}
	if resumed {
		rep.Damaged, rep.Resumed = kept, true
		if rep.KeptIndex, err = keepIndexes(dir, kept); err != nil { // salvage_swap.go
			lock.release()
			return rep, fmt.Errorf("engine: salvage: %w", err)
		}
		return rep, spaceError(dir, kept, rebuildSalvaged(ctx, cfg, dir, lock, rep))
	}
	swapped, err := salvageFile(ctx, dir, opts, rep)
	if err == nil && swapped {
		err = swapStep("rebuild") // salvage_swap.go: tests
	}
	if err == nil && rep.Sound {
		err = forgetDamage(dir) // salvage_swap.go: the file was found sound
	}
	if err != nil || !swapped {
		lock.release()
		return rep, spaceError(dir, rep.Damaged, err) // salvage_space.go
	}
	return rep, spaceError(dir, rep.Damaged, rebuildSalvaged(ctx, cfg, dir, lock, rep))
}

// salvageFile writes the salvaged database in a staging directory of dir
// and, when complete, swaps it in (swapped). The staging directory is
// removed whatever happens.
func salvageFile(ctx context.Context, dir string, opts SalvageOptions, rep *SalvageReport) (swapped bool, err error) {
	staging, err := os.MkdirTemp(dir, stagingPrefix)
	if err != nil {
		return false, fmt.Errorf("engine: salvage: %w", err)
	}
	defer os.RemoveAll(staging)
	src := filepath.Join(staging, "damaged.db")
	if err := copyDatabase(ctx, filepath.Join(dir, DatabaseFile), src); err != nil {
		return false, err
	}
	// Commits past a damaged frame of the copy's WAL, which SQLite would
	// drop, are applied when that is exact (wal_damage.go); a log whose
	// -shm (the directory's: the copy has none) says a checkpoint copied
	// frames past its valid prefix into mnemo.db is set aside, as Open
	// sets it aside: applying the prefix would roll pages back. The
	// original is kept as found with the damaged file.
	path := filepath.Join(dir, DatabaseFile)
	d, err := store.RepairWAL(src, path+"-shm")
	if err != nil {
		return false, fmt.Errorf("engine: salvage: %w", err)
	}
	if d != nil {
		d.Log = path + "-wal"
		rep.WAL = walDamage(d)
	}
	if rep.Findings, err = salvage.Check(ctx, src, maxDatabaseProblems); err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	if len(rep.Findings) == 0 && !opts.Force {
		rep.Sound = true
		return false, nil
	}
	if len(rep.Findings) > 0 { // a sound file is read as SQLite reads it
		notes, err := salvage.FixHeader(src)
		if err != nil {
			return false, fmt.Errorf("engine: %w", err)
		}
		rep.Findings = append(notes, rep.Findings...) // the cause first
	}
	dst := filepath.Join(staging, DatabaseFile)
	res, err := salvage.Copy(ctx, src, dst, rep.SalvagedAt)
	if err != nil {
		return false, fmt.Errorf("engine: %w", err)
	}
	rep.fill(res)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if rep.Damaged, rep.KeptIndex, err = swapDatabase(dir, dst, rep.SalvagedAt); err != nil {
		return false, err
	}
	if rep.WAL != nil {
		rep.WAL.Kept = rep.Damaged + "-wal"
	}
	return true, nil
}

// removeStaging removes the staging directories (.salvage-*) that a
// salvage killed before it could remove its own left in dir; each holds a
// copy of the whole database. The caller holds dir's lock, so none is in
// use. Best effort.
func removeStaging(dir string) {
	stale, _ := filepath.Glob(filepath.Join(dir, stagingPrefix+"*"))
	for _, s := range stale {
		_ = os.RemoveAll(s)
	}
}

// stagingPrefix starts the name of a salvage's staging directory in the
// data directory.
const stagingPrefix = ".salvage-"

// fill copies the tables and losses of res into r.
func (r *SalvageReport) fill(res *salvage.Report) {
	r.ThreadsRebuilt, r.Lost, r.MarkersLost = res.ThreadsRebuilt, res.Lost, res.MarkersLost
	for _, t := range res.Tables {
		st := SalvageTable{Name: t.Name, Kept: t.Kept, FromPages: t.FromPages, Invalid: t.Invalid, Garbled: t.Garbled, Redigested: t.Redigested, Orphans: t.Orphans, Missing: t.Missing}
		for _, u := range t.Unreadable {
			st.Unreadable = append(st.Unreadable, [2]int64{u.From, u.To})
		}
		r.Tables = append(r.Tables, st)
	}
	r.UncountedMessages = uncountedMessages(r.Tables)
}

// uncountedMessages returns SalvageReport.UncountedMessages of tables:
// the messages' unreadable rowid ranges when the threads table lost rows
// too, else nil.
func uncountedMessages(tables []SalvageTable) [][2]int64 {
	var msgs [][2]int64
	threadsLost := false
	for _, t := range tables {
		switch t.Name {
		case "messages":
			msgs = t.Unreadable
			if t.Missing {
				msgs = [][2]int64{{1, math.MaxInt64}}
			}
		case "threads":
			threadsLost = t.Missing || len(t.Unreadable) > 0
		}
	}
	if !threadsLost {
		return nil
	}
	return msgs
}

// copyDatabase copies the database file at from, and its WAL when there is
// one, to to (and to-wal); the -shm is not copied (SQLite rebuilds it from
// the WAL).
func copyDatabase(ctx context.Context, from, to string) error {
	for _, suffix := range []string{"", "-wal"} {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := copyFile(from+suffix, to+suffix)
		if suffix != "" && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("engine: salvage: copy the damaged file: %w", err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// KeptDamaged lists the base names of the damaged files kept in the data
// directory dir, each file on disk its own entry: the damaged database
// files salvages kept (mnemo.db.damaged-<UTC time>, sorted), each followed
// by the -wal and then the -shm kept beside it under its name
// (mnemo.db.damaged-<UTC time>-wal, …-shm) when they exist, a -wal or
// -shm whose database file is gone in that file's place, then the index
// directory kept with it (mnemo.db.damaged-<UTC time>-index, a directory:
// SalvageReport.KeptIndex; an Open that found no database file beside a
// log or indexes keeps them under such names too, Engine.KeptOrphans);
// then the copies
// of mnemo.db an Open kept before applying a damaged log's prefix
// (mnemo.db.before-wal-<UTC time>, sorted: WALDamage.Before); then the damaged
// write-ahead logs that Open kept (mnemo.db-wal.damaged-<UTC time>, sorted), each
// followed by the -shm kept with it (mnemo.db-shm.damaged-<same suffix>),
// then any such -shm copy whose log is gone. Nil when there are none. They
// may still hold erased text (a -shm copy only through its log): an
// erasure reaches only mnemo.db.
func KeptDamaged(dir string) []string {
	found, _ := filepath.Glob(filepath.Join(dir, DatabaseFile+".damaged-*"))
	kept := keptSalvaged(found)
	logs, _ := filepath.Glob(store.KeptWALPattern(filepath.Join(dir, DatabaseFile)))
	shms, _ := filepath.Glob(filepath.Join(dir, keptSHMPattern))
	befores, _ := filepath.Glob(store.BeforeWALPattern(filepath.Join(dir, DatabaseFile)))
	for _, b := range befores {
		kept = append(kept, filepath.Base(b))
	}
	paired := map[string]bool{}
	for _, log := range logs {
		kept = append(kept, filepath.Base(log))
		if shm := keptSHM(log); slices.Contains(shms, shm) { // wal_damage.go
			kept = append(kept, filepath.Base(shm))
			paired[shm] = true
		}
	}
	for _, shm := range shms {
		if !paired[shm] {
			kept = append(kept, filepath.Base(shm))
		}
	}
	return kept
}

// keptSalvaged orders the paths found of a salvage's kept files as
// KeptDamaged lists them: by the database file's name, each database file
// followed by its -wal, -shm and index directory, those whose database
// file is gone in its place; base names.
func keptSalvaged(found []string) []string {
	var bases []string
	for _, f := range found {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(f, "-wal"), "-shm"), keptIndexSuffix)
		if !slices.Contains(bases, base) {
			bases = append(bases, base)
		}
	}
	slices.Sort(bases)
	var kept []string
	for _, base := range bases {
		for _, f := range []string{base, base + "-wal", base + "-shm", base + keptIndexSuffix} {
			if slices.Contains(found, f) {
				kept = append(kept, filepath.Base(f))
			}
		}
	}
	return kept
}

// keptName is the name the damaged database file db is kept under:
// db.damaged-<UTC time>, with a counter when a file of that name exists.
func keptName(db string, at time.Time) string {
	return damagedName(db, at, func(name string) bool {
		_, err := os.Lstat(name)
		return errors.Is(err, os.ErrNotExist)
	})
}

// damagedName is db.damaged-<UTC time>, suffixed -2, -3, … until free
// reports the name unused.
func damagedName(db string, at time.Time, free func(name string) bool) string {
	base := db + ".damaged-" + at.UTC().Format("20060102T150405Z")
	name := base
	for i := 2; !free(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// syncDir flushes dir's entries (renames, links) to disk; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// rebuildSalvaged opens the engine on the salvaged directory (holding
// lock, which Close releases), rebuilds its indexes and checks it.
func rebuildSalvaged(ctx context.Context, cfg Config, dir string, lock *dirLock, rep *SalvageReport) error {
	e, err := open(ctx, cfg, dir)
	if err != nil {
		lock.release()
		return fmt.Errorf("engine: salvage: the salvaged database is in place; opening it to rebuild the indexes failed (run reindex): %w", err)
	}
	e.lock = lock
	defer e.Close()
	if rep.Resumed {
		if rep.Lost, err = journal.LostRanges(ctx, e.db); err != nil {
			return fmt.Errorf("engine: salvage: %w", err)
		}
	}
	if err := e.Reindex(ctx, false); err != nil {
		return fmt.Errorf("engine: salvage: the salvaged database is in place; rebuilding the indexes failed (run reindex): %w", err)
	}
	err = e.Check(ctx)
	var ce *CheckError
	if errors.As(err, &ce) {
		rep.Problems = append(prefixed("database: ", ce.Database), ce.Problems...)
		return nil
	}
	return err
}

// LostSeqs returns the seqs that salvages of the database could not
// recover (Salvage), as ranges by thread and seq; nil when none.
// Errors: ErrClosed, ErrNilContext, or the database's.
func (e *Engine) LostSeqs(ctx context.Context) ([]LostRange, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	return journal.LostRanges(ctx, e.db)
}
