package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

// CheckCommand is `mnemo check`: verify the database (on SQLite its
// quick_check, or integrity_check with --full) and that the indexes match
// it.
// Like every command it embeds Main: the process environment and the global
// flags.
type CheckCommand struct {
	*Main
	// stage is how far the check has come, and prechecked whether
	// mnemo.db passed SQLite's check before the engine opened it: what
	// an interruption reports (checkinterrupt.go).
	stage      checkStage
	prechecked bool
}

// Run parses the flags of `mnemo check` from args and runs it.
func (c *CheckCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("check", "")
	full := fs.Bool("full", false, "run SQLite's full integrity_check (slower: reads every index) instead of quick_check")
	asJSON := fs.Bool("json", false, "print the report as JSON: {ok, full, action, problems: [{kind, detail}], databaseCapped, rebuilt?, rebuiltIndexes, deletedSnapshots, reembedding, knownLosses?, keptDamaged, strayLogs, dotIds: [{kind, id}], reservedIds, damageRecord?} (exit 1 with it when ok is false: also when the record of damage remains after a quick check)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	res, err := c.check(ctx, *full)
	if err != nil {
		err = c.interrupted(ctx, err, *full)
		c.printConfigAdvice(nil, *full) // said before the error
		if rep := c.unreadableReport(err, *full); rep != nil && *asJSON {
			if err := c.printJSON(rep); err != nil {
				return err
			}
		}
		return err
	}
	res.config = c.configDamage
	c.printConfigAdvice(res, *full)
	c.printWorkingAdvice(res.working)
	if res.found != nil {
		c.printAdvice(res.found) // for a person, with --json too
		c.printNotInstalled(res.embedder)
	}
	if *asJSON {
		if err := c.printJSON(res.report(*full)); err != nil {
			return err
		}
	} else if !res.failed() {
		c.printOK(res, *full)
	}
	if res.failed() {
		return &listedError{res.found, res.otherProblems()}
	}
	if res.recordAfter != nil { // the note above says what removes it
		return errRecordRemains
	}
	return nil
}

// unreadableReport is the report of a check whose database file could
// not be read at all (err is engine.ErrDatabaseCorrupt: a mnemo.db cut
// short, or of 0 bytes beside the indexes; or an
// engine.GoneDatabaseError: mnemo.db missing beside its log or indexes):
// ok false, action restore,
// err's text (as the CLI says errors: without package names, a DSN's
// password scrubbed) as the one database problem, no knownLosses. Nil for
// another error, one that kept the check from running. The error itself
// is said as every command says it (with what to do).
func (c *CheckCommand) unreadableReport(err error, full bool) *checkReport {
	if !errors.Is(err, engine.ErrDatabaseCorrupt) && !errors.As(err, new(*engine.GoneDatabaseError)) {
		return nil
	}
	detail := withoutPackages(scrubDSN(err.Error(), c.DB)) // as standard error says it
	res := &checkResult{found: &engine.CheckError{Database: []string{detail}}, config: c.configDamage, recordAfter: c.target().damageRecord()}
	if c.DB == "" {
		res.kept, res.stray = engine.KeptDamaged(c.Dir), engine.StrayLogs(c.Dir)
	}
	return res.report(full)
}

// checkResult is what a check found: found is nil when the store passed
// and config nil when the stored configuration could be read and applied
// (failed); lost (read when lostRead) are the messages a salvage recorded
// as lost.
type checkResult struct {
	found    *engine.CheckError
	config   *storedConfigError
	lost     []engine.LostRange
	lostRead bool
	kept     []string // a salvage's copies of a damaged database (SQLite)
	// stray are the files of the data directory that begin as a
	// write-ahead log but are no file mnemo keeps (engine.StrayLogs: a
	// mnemo.db-wal moved by hand).
	stray []string
	// rebuilt says what the open or the check rebuilt from the database
	// before verifying (checkEvents): a restored backup's indexes, say.
	rebuilt []string
	// dotIDs are what the store holds under "." or ".." (checkdotids.go).
	dotIDs []dotID
	// reservedIDs are its threads and resources under an id beginning
	// with "erased-" (checkreserved.go).
	reservedIDs []dotID
	// embedder is why the messages owed embeddings could not be embedded
	// (notInstalled: use-lite's weights missing), nil otherwise.
	embedder error
	// working is the engine's engine.ErrStoredWorkingMemory: the
	// working-memory configuration stored in the database does not build
	// (checkwm.go); nil when it builds or none is stored.
	working error
	// record and recordAfter are the record of damage beside mnemo.db
	// (damage_record.go) when the check began and when it ended; nil:
	// none.
	record, recordAfter *store.DamageMark
}

// check runs the checks of the data directory or database: the file's
// (checkFile) before the engine opens it, then the engine's (checkEngine)
// with the damage the engine found and repaired while opening. An error
// is one that kept the check from running, not a finding.
func (c *CheckCommand) check(ctx context.Context, full bool) (*checkResult, error) {
	res := &checkResult{record: c.target().damageRecord()}
	if c.DB == "" {
		res.kept, res.stray = engine.KeptDamaged(c.Dir), engine.StrayLogs(c.Dir)
	}
	// Damage found before Check looks (Open: a lexical index directory
	// that does not open; the drainer: bleve's merger failing on a
	// garbled segment) is quarantined and rebuilt by the engine on its
	// own: it is reported from the events the engine published, as Check
	// reports the damage it finds itself.
	c.reach(stageDatabase, "database")
	prechecked, err := c.checkFile(ctx, full)
	var ce *engine.CheckError
	if errors.As(err, &ce) {
		res.found, res.recordAfter = ce, c.target().damageRecord()
		return res, nil
	} else if err != nil {
		return nil, err
	}
	c.prechecked = prechecked
	c.reach(stageOpen, "open")
	e, watch, err := c.openSyncing(ctx, c.target())
	if err != nil {
		return nil, err
	}
	defer watch.Stop()
	defer e.CloseContext(ctx)
	if err := c.checkEngine(ctx, e, watch, engine.CheckOptions{Full: full, Prechecked: prechecked}, res); err != nil {
		return nil, err
	}
	return res, nil
}

// checkEngine runs the engine's checks on e, opened with watch: the
// stored working-memory configuration, the messages queued for the
// indexes indexed, then CheckWith (compared), and fills res with what
// they found and what surrounds it (checkAfter).
func (c *CheckCommand) checkEngine(ctx context.Context, e *engine.Engine, watch *outboxWatch, opt engine.CheckOptions, res *checkResult) error {
	res.working = storedWorkingDamage(e)
	c.reach(stageQueued, "queued")
	if err := c.indexQueued(ctx, e, watch); err != nil {
		return err
	}
	c.reach(stageCompare, "compare")
	ce, rebuilt, err := compared(ctx, e, watch, opt)
	if err != nil {
		return err
	}
	res.found, res.rebuilt = ce, rebuilt
	return c.checkAfter(ctx, e, res)
}

// compared runs e's CheckWith and stops watch: its findings, with the
// damage the engine found and repaired on its own before them
// (checkEvents), nil when there was none, and what the engine rebuilt.
// An error is one that kept the check from running.
func compared(ctx context.Context, e *engine.Engine, watch *outboxWatch, opt engine.CheckOptions) (*engine.CheckError, []string, error) {
	err := e.CheckWith(ctx, opt)
	watch.Stop()
	var ce *engine.CheckError
	if err != nil && !errors.As(err, &ce) {
		return nil, nil, err
	}
	found, rebuilt := checkEvents(watch.Events, ce)
	if len(found.Problems) > 0 {
		if ce == nil {
			ce = found
		} else {
			ce.Problems = append(found.Problems, ce.Problems...)
			ce.Rebuilt = cmp.Or(ce.Rebuilt, found.Rebuilt)
		}
	}
	return ce, rebuilt, nil
}

// checkAfter fills res, whose findings (res.found) are in, with what
// the check says beside them: the embedder that could not embed, the
// damaged copies kept, the record of damage, the lost messages and,
// without findings, the ids outside the id rule (dotIDs, reservedIDs).
func (c *CheckCommand) checkAfter(ctx context.Context, e *engine.Engine, res *checkResult) error {
	ce := res.found
	res.embedder = notInstalled(ctx, e, ce)
	if c.DB == "" { // again: the open may have kept a damaged write-ahead log
		res.kept, res.stray = engine.KeptDamaged(c.Dir), engine.StrayLogs(c.Dir)
	}
	res.recordAfter = c.target().damageRecord()
	lost, err := e.LostSeqs(ctx)
	switch {
	case err == nil:
		res.lost, res.lostRead = lost, true
	case ce == nil:
		return err
	}
	// With findings, losses that could not be read (a damaged database)
	// are left unread: the findings are the answer.
	if ce != nil {
		return nil
	}
	c.reach(stageIDs, "ids")
	if res.dotIDs, err = dotIDs(ctx, e); err != nil {
		return err
	}
	res.reservedIDs, err = reservedIDs(ctx, e)
	return err
}

// failed reports whether the check found anything: in the store, or the
// stored configuration's damage.
func (r *checkResult) failed() bool { return r.found != nil || r.otherProblems() > 0 }

// otherProblems counts the findings outside the store's (found): the
// stored mnemo.json's damage and the stored working-memory configuration's.
func (r *checkResult) otherProblems() int {
	n := 0
	if r.config != nil {
		n++
	}
	if r.working != nil {
		n++
	}
	return n
}

// printOK prints what a check that passed verified, with the known losses
// and a salvage's kept copies, on standard output; its notes (the indexes
// rebuilt before it, a write-ahead log found damaged and repaired or set
// aside, ids stored before a rule refused them) on standard error, as
// every command's notes are.
func (c *CheckCommand) printOK(res *checkResult, full bool) {
	known := ""
	if len(res.lost) > 0 {
		known = " apart from the known losses below"
	}
	fmt.Fprintf(c.Stdout, "ok: %s%s\n", c.passed(full), known)
	if len(res.rebuilt) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: rebuilt the indexes from the database before the check: %s (they are derived: nothing was lost)\n", strings.Join(res.rebuilt, "; "))
	}
	if len(res.lost) > 0 {
		fmt.Fprintln(c.Stdout, "known losses (messages a salvage could not recover; their seqs stay unused):")
		printLostRanges(c.Stdout, res.lost)
	}
	salvaged, logs, befores := splitKept(res.kept)
	salvaged, bare := c.splitBare(salvaged)
	if len(salvaged) > 0 {
		fmt.Fprintf(c.Stdout, "kept by a salvage: %s (the damaged database, with the -wal, -shm and index directory kept beside it; they may still hold erased text: delete them once the salvage is judged complete)\n", strings.Join(salvaged, ", "))
	}
	if len(bare) > 0 {
		fmt.Fprintf(c.Stdout, "kept beside no database file: %s (the -wal, -shm or index directory of a database an open found gone, kept when it created a new one, or of a salvage's damaged database since deleted; they may hold the only copy of that database's text, and erased text: delete them once no longer needed)\n", strings.Join(bare, ", "))
	}
	repaired, aside, orphans := c.splitKeptLogs(logs)
	const keptAsFound = "Kept as found: %s (it may still hold erased text; no erasure reaches it: delete it once no longer needed)"
	if len(repaired) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: the write-ahead log was found damaged when the database was opened, and repaired: every commit was applied, nothing is lost. "+keptAsFound+"\n", strings.Join(repaired, ", "))
	}
	if len(aside) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: the write-ahead log was found damaged when the database was opened, and set aside unapplied: every commit in it was already in %s (a checkpoint had copied them), nothing is lost. "+keptAsFound+"\n", engine.DatabaseFile, strings.Join(aside, ", "))
	}
	if len(orphans) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: %s kept with a damaged write-ahead log whose kept copy is gone: it holds no message text; delete it once no longer needed\n", strings.Join(orphans, ", "))
	}
	if len(res.stray) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: %s begins as a SQLite write-ahead log but is no file mnemo keeps (a %s-wal moved or copied by hand, under a running server?): no open reads it, and it may hold message text, erased text too, which no erasure reaches: delete it once no longer needed\n", strings.Join(res.stray, ", "), engine.DatabaseFile)
	}
	c.printRecordNote(res.record, res.recordAfter, full) // damage_record.go
	printDotIDs(c.Stderr, res.dotIDs)
	printReservedIDs(c.Stderr, res.reservedIDs)
	if len(befores) > 0 {
		fmt.Fprintf(c.Stderr, "mnemo check: note: %s as it was before a damaged write-ahead log's valid prefix was applied (no valid -shm said what it held) is kept as %s: if the database reads wrong or lacks commits, stop mnemo and restore it from that copy; it may still hold erased text: delete it once no longer needed\n", engine.DatabaseFile, strings.Join(befores, ", "))
	}
}

// passed says what a check that passed verified: "the database passes
// SQLite's quick_check; every stored message is in both indexes, nothing
// else is, seqs are gap-free" (on Postgres, from "every").
func (c *CheckCommand) passed(full bool) string {
	const indexes = "every stored message is in both indexes, nothing else is, seqs are gap-free"
	if c.DB != "" {
		return indexes
	}
	pragma := "quick_check"
	if full {
		pragma = "integrity_check"
	}
	return fmt.Sprintf("the database passes SQLite's %s; %s", pragma, indexes)
}

// splitKept splits the kept copies of engine.KeptDamaged into a
// salvage's damaged databases, an open's damaged write-ahead logs with
// their -shm copies, and the copies of mnemo.db an open kept before
// applying a damaged log's prefix (mnemo.db.before-wal-*).
func splitKept(kept []string) (salvaged, logs, befores []string) {
	for _, k := range kept {
		switch {
		case strings.HasPrefix(k, engine.DatabaseFile+"-wal.") || strings.HasPrefix(k, engine.DatabaseFile+"-shm."):
			logs = append(logs, k)
		case strings.HasPrefix(k, engine.DatabaseFile+".before-wal-"):
			befores = append(befores, k)
		default:
			salvaged = append(salvaged, k)
		}
	}
	return salvaged, logs, befores
}

// splitBare splits the kept files of salvages (splitKept's salvaged)
// into those of a damaged database file still kept and those beside none
// (mnemo.db.damaged-<time>-wal, -shm, -index alone): the files of a
// database an open found gone (engine.Engine.KeptOrphans), or a
// salvage's whose database file was deleted.
func (c *CheckCommand) splitBare(salvaged []string) (withFile, bare []string) {
	for _, k := range salvaged {
		base := k
		for _, s := range []string{"-wal", "-shm", "-index"} {
			base = strings.TrimSuffix(base, s)
		}
		if _, err := os.Lstat(filepath.Join(c.Dir, base)); err == nil {
			withFile = append(withFile, k)
		} else {
			bare = append(bare, k)
		}
	}
	return withFile, bare
}

// splitKeptLogs splits an open's kept copies of damaged write-ahead logs
// (splitKept's logs: each log copy followed by its -shm copy) into those
// repaired exactly and those set aside with every commit in mnemo.db
// already (engine.KeptWALCheckpointed), each with its -shm copy, and the
// -shm copies whose log copy is gone. A check that passed has no other
// kind: a log whose commits were not applied is a finding.
func (c *CheckCommand) splitKeptLogs(logs []string) (repaired, aside, orphans []string) {
	group := map[string]*[]string{}
	for _, k := range logs {
		suffix, isLog := strings.CutPrefix(k, engine.DatabaseFile+"-wal.")
		switch {
		case isLog && engine.KeptWALCheckpointed(filepath.Join(c.Dir, k)):
			aside = append(aside, k)
			group[suffix] = &aside
		case isLog:
			repaired = append(repaired, k)
			group[suffix] = &repaired
		default:
			to := &orphans
			if g, ok := group[strings.TrimPrefix(k, engine.DatabaseFile+"-shm.")]; ok {
				to = g
			}
			*to = append(*to, k)
		}
	}
	return repaired, aside, orphans
}

// checkFile runs the database checks on a data directory's mnemo.db
// before the engine opens it (engine.CheckFile: read-only, so a damaged
// file and its -wal stay as found for salvage to keep). It returns the
// *engine.CheckError of what it found; prechecked is true when the file
// passed (the engine's check need not run them again).
func (c *CheckCommand) checkFile(ctx context.Context, full bool) (prechecked bool, err error) {
	if c.DB != "" {
		return false, nil
	}
	if err := checkNotServed(c.Dir); err != nil {
		return false, err
	}
	cfg, err := c.engineConfig(ctx, c.target(), nil, false)
	if err != nil {
		return false, err
	}
	err = engine.CheckFile(ctx, cfg, engine.CheckOptions{Full: full})
	return err == nil, err
}

// listedError is the error of a check whose findings printAdvice printed
// above it: its text counts them ("2 problems (listed above)"; "at least
// 100 problems" when SQLite's check stopped at its cap) instead of saying
// each again; it wraps the *engine.CheckError, so errors.Is and errors.As
// see ErrInconsistent, ErrDatabaseCorrupt and the findings.
// A damaged stored configuration and a stored working-memory
// configuration that does not build are others (others); ce is nil when
// they are the only findings.
type listedError struct {
	ce     *engine.CheckError
	others int
}

func (e *listedError) Error() string {
	n := e.others
	if e.ce == nil {
		return count(n, "problem") + " (listed above)"
	}
	s := count(n+len(e.ce.Database)+len(e.ce.WAL)+len(e.ce.Problems), "problem")
	if e.ce.DatabaseCapped() {
		s = "at least " + s
	}
	return s + " (listed above)"
}

func (e *listedError) Unwrap() error {
	if e.ce == nil {
		return nil
	}
	return e.ce
}

// checkEvents drains the events the engine published while check ran and
// returns the lexical index damage among them (EventQuarantined: the
// directory was moved aside and rebuilt from the database) that ce, Check's
// own findings, does not report already (no Problems when there is none),
// and what was rebuilt from the database (each EventRebuild's detail, a
// trailing "; rebuilding" cut: by the time check reports, it is done).
func checkEvents(events chan engine.Event, ce *engine.CheckError) (found *engine.CheckError, rebuilt []string) {
	found = &engine.CheckError{}
	for {
		select {
		case ev := <-events:
			if ev.Reason == engine.EventRebuild && ev.Detail != "" {
				rebuilt = append(rebuilt, strings.TrimSuffix(ev.Detail, "; rebuilding"))
			}
			if ev.Reason != engine.EventQuarantined || ce != nil && ev.Path == ce.Rebuilt {
				continue
			}
			found.Problems = append(found.Problems, fmt.Sprintf("the lexical index was found damaged (%s): quarantined to %s and rebuilt from the database", ev.Detail, ev.Path))
			found.Rebuilt = ev.Path
		default:
			return found, rebuilt
		}
	}
}

// printAdvice lists what check found and says what to do about it.
func (c *CheckCommand) printAdvice(ce *engine.CheckError) {
	c.printDatabaseAdvice(ce.Database)
	c.printWALAdvice(ce.WAL)
	if len(ce.Problems) > 0 {
		fmt.Fprintln(c.Stderr, "mnemo check: the indexes disagree with the database:")
		for _, p := range ce.Problems {
			fmt.Fprintf(c.Stderr, "  %s\n", p)
		}
	}
	switch checkAction(ce) {
	case "none": // every problem was repaired by the check: one line each
		if ce.Rebuilt != "" {
			fmt.Fprintf(c.Stderr, "The damaged index was moved to %s and rebuilt from the database: nothing is lost, and the next check should pass. Damage that comes back points at the disk. The quarantined copy is removed by the next erasure, or delete it yourself.\n", ce.Rebuilt)
		}
		if len(ce.Snapshots) > 0 {
			files := "files were"
			if len(ce.Snapshots) == 1 {
				files = "file was"
			}
			fmt.Fprintf(c.Stderr, "The damaged shard snapshot %s deleted: nothing is lost (snapshots are derived; each resource's next load builds its shard from the database and a new snapshot is written later), and the next check should pass. Damage that comes back points at the disk.\n", files)
		}
		if len(ce.Reembedding) > 0 {
			fmt.Fprintf(c.Stderr, "The damaged embeddings were handed back for embedding again: nothing is lost (embeddings are derived from the messages). The next mnemo serve, mnemo mcp or mnemo check embeds them again, and the check then passes. Damage that comes back points at the disk. To recompute every embedding now, run: %s\n", c.target().mnemo("reindex", "--vectors"))
		}
	case "reindex":
		fmt.Fprintf(c.Stderr, "What to do: rebuild the indexes from the database (add --vectors to recompute the embeddings too): %s\n", c.target().mnemo("reindex"))
	}
}

// printDatabaseAdvice lists the damage check found in the database itself
// (engine.CheckError.Database), if any, and says what to do about it.
func (c *CheckCommand) printDatabaseAdvice(found []string) {
	switch {
	case len(found) == 0:
	case c.DB != "":
		// Only the full check's digests find damage on Postgres.
		fmt.Fprintln(c.Stderr, "mnemo check: messages in the database are not what was appended (their stored digests):")
		for _, p := range found {
			fmt.Fprintf(c.Stderr, "  %s\n", p)
		}
		fmt.Fprintln(c.Stderr, "What to do: they were altered outside mnemo; restore the database from a backup (mnemo salvage is for SQLite data directories).")
	default:
		fmt.Fprintf(c.Stderr, "mnemo check: the database file %s is damaged (SQLite's integrity check, or with --full the messages' stored digests):\n", filepath.Join(c.Dir, engine.DatabaseFile))
		for _, p := range found {
			fmt.Fprintf(c.Stderr, "  %s\n", p)
		}
		printCorruptAdvice(c.Stderr, c.target(), true)
	}
}

// printWALAdvice lists the kept copies of damaged write-ahead logs whose
// commits were not applied (engine.CheckError.WAL), if any, and says what
// to do about them.
func (c *CheckCommand) printWALAdvice(found []string) {
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo check: the write-ahead log of %s was found damaged when it was opened or salvaged; commits after the damage were not applied:\n", filepath.Join(c.Dir, engine.DatabaseFile))
	for _, p := range found {
		fmt.Fprintf(c.Stderr, "  %s\n", p)
	}
	fmt.Fprintf(c.Stderr, "What to do: %s is sound but lacks what those commits wrote (messages appended, erasures, working memory); the kept file holds them as found. Restore %s from a backup taken after them, if there is one (%s), then rebuild the indexes from it: %s\nOtherwise what they held is lost: keep the file for inspection (SQLite's own tools, or a support request), then delete it, and the -shm kept with it when one is named above, to accept the loss; check passes once the log copy is gone. It may hold erased text: no erasure reaches it. Damage that comes back points at the disk.\n",
		engine.DatabaseFile, engine.DatabaseFile, backupsDoc, c.target().mnemo("reindex"))
}

// printCorruptAdvice says what to do about a damaged database file of t
// (engine.ErrDatabaseCorrupt): found by check's integrity check, or by
// any command whose open could not read the file at all, or refused
// because of the record of damage beside it (which it then says how to
// clear: printRecordAdvice). salvage says
// whether to point at mnemo salvage too: not when salvage itself failed
// on the file (its header unreadable: "nothing to salvage"), where the
// advice sent the reader back to the command that had just failed.
func printCorruptAdvice(w io.Writer, t target, salvage bool) {
	fmt.Fprintf(w, "What to do: stop every process using %s, restore %s from a backup (%s; and delete %s-wal and %s-shm beside it), then rebuild the indexes from it: %s\n",
		t.dir, engine.DatabaseFile, backupsDoc, engine.DatabaseFile, engine.DatabaseFile, t.mnemo("reindex"))
	if m := t.damageRecord(); m != nil { // damage_record.go
		printRecordAdvice(w, t, m)
	}
	if salvage {
		fmt.Fprintf(w, "Without a backup, salvage copies what is still readable into a new %s (the damaged file is kept beside it), records the messages lost, and rebuilds the indexes: %s\n",
			engine.DatabaseFile, t.mnemo("salvage"))
	}
	fmt.Fprintf(w, "The indexes are derived from the database and cannot repair it.\n")
}

// printEmptyAdvice says what to do about t's mnemo.db of 0 bytes
// (engine.ErrDatabaseEmpty): nothing in it can be salvaged, so a backup
// is the only copy; a directory that never held a memory is started anew
// by deleting the file.
func printEmptyAdvice(w io.Writer, t target) {
	dir := t.dir
	fmt.Fprintf(w, "What to do: stop every process using %s, restore %s from a backup (%s; and delete %s-wal and %s-shm beside it), then rebuild the indexes from it: %s\nAn empty file holds nothing mnemo salvage could copy. If %s never held a memory, delete %s and its index directory: a writing command (mnemo ingest, mnemo serve) creates them anew.\n",
		dir, engine.DatabaseFile, backupsDoc, engine.DatabaseFile, engine.DatabaseFile, t.mnemo("reindex"), dir, engine.DatabaseFile)
}

// backupsDoc points the advice to restore mnemo.db from a backup at the
// page that says how one is taken (mnemo backup) and restored.
const backupsDoc = `how: docs/operations.md, "Backups"`
