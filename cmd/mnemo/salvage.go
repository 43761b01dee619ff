package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

func init() {
	commands["salvage"] = command{"recover what is readable of a damaged mnemo.db into a new one (the damaged file is kept), then rebuild the indexes", func(m *Main) Command { return &SalvageCommand{m} }}
}

// SalvageCommand is `mnemo salvage` (engine.Salvage). Like every command
// it embeds Main: the process environment and the global flags.
type SalvageCommand struct{ *Main }

// Run parses the flags of `mnemo salvage` from args and runs it.
func (c *SalvageCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("salvage", "")
	force := fs.Bool("force", false, "salvage even a database that passes SQLite's integrity check")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	if c.DB != "" {
		return engine.ErrSalvagePostgres
	}
	if err := checkNotServed(c.Dir); err != nil {
		return err
	}
	cfg, err := c.engineConfig(ctx, c.target(), nil, false)
	if err != nil {
		return err
	}
	c.warnConfig()
	record := c.target().damageRecord() // damage_record.go
	rep, err := engine.Salvage(ctx, cfg, engine.SalvageOptions{Force: *force})
	if rep == nil || (err != nil && rep.Damaged == "") {
		return err
	}
	if rep.Sound {
		c.printRecordRemoved(record)
	}
	if *asJSON {
		if jerr := c.printJSON(salvageJSON{rep, recordFate(record, c.target().damageRecord())}); jerr != nil {
			return jerr
		}
	} else if perr := c.printSalvage(rep); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		return errors.New("the salvaged directory does not check ok (see above)")
	}
	if len(rep.UncountedMessages) > 0 {
		return fmt.Errorf("some messages were unreadable and how many is unknown (see above): keep %s", rep.Damaged)
	}
	return nil
}

// salvageJSON is `mnemo salvage --json`'s answer: the engine's report
// and what became of the record of damage beside mnemo.db, as check
// --json says it.
type salvageJSON struct {
	*engine.SalvageReport
	// DamageRecord is "removed" when the salvage removed the record of
	// damage (it replaced the damaged file, or found it sound), "remains"
	// when the record is there after it (the salvage failed before its
	// swap), absent when there was none: recordFate.
	DamageRecord string `json:"damageRecord,omitempty"`
}

// warnConfig says on stderr, when the stored configuration could not be
// read or applied (c.configDamage), that the salvage runs with the
// engine's defaults, and what to do about it. Before, a malformed
// mnemo.json refused the salvage (exit 1) as every command.
func (c *SalvageCommand) warnConfig() {
	if d := c.configDamage; d != nil {
		fmt.Fprintf(c.Stderr, "mnemo salvage: warning: the stored configuration cannot be used: %v\n"+
			"The salvage runs with the engine's defaults (%s names no store, and none of its settings changes what a salvage reads or writes); "+
			"every other command but mnemo check refuses to run until it is fixed.\nWhat to do: %s\n", d.Err, StoredConfigFile, d.advice())
	}
}

// printRecordRemoved says on standard error that a salvage that found
// mnemo.db sound removed the record of damage before (read before the
// salvage; nil: there was none), as check --full says it; nothing when
// the record is still there. Before, salvage said "nothing was changed"
// and no more.
func (c *SalvageCommand) printRecordRemoved(before *store.DamageMark) {
	if before == nil || c.target().damageRecord() != nil {
		return
	}
	fmt.Fprintf(c.Stderr, "mnemo salvage: note: the record of damage %s (%s) was removed: %s passes SQLite's integrity_check, and new data is stored again\n",
		before.Path, recordSeen(before), engine.DatabaseFile)
}

// printSalvage prints rep for a person: the tables, the losses, where the
// damaged file is and what check says now.
func (c *SalvageCommand) printSalvage(rep *engine.SalvageReport) error {
	if rep.Sound {
		fmt.Fprintf(c.Stdout, "nothing to salvage: %s/%s passes SQLite's integrity_check; it was not changed (--force salvages it anyway). To compare it with the indexes, run: %s\n", rep.Dir, engine.DatabaseFile, c.target().mnemo("check"))
		c.printWAL(rep.WAL)
		return nil
	}
	if rep.Resumed {
		fmt.Fprintf(c.Stdout, "finished an interrupted salvage of %s/%s: the salvaged database was already in place; the indexes are rebuilt (its table counts were lost with it)\n", rep.Dir, engine.DatabaseFile)
		return c.printEnd(rep)
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintf(c.Stdout, "salvaged %s/%s (--force): SQLite's integrity_check and the message digests found no damage\n", rep.Dir, engine.DatabaseFile)
	} else {
		fmt.Fprintf(c.Stdout, "salvaged %s/%s; the damage found (SQLite's integrity_check, message digests):\n", rep.Dir, engine.DatabaseFile)
	}
	for i, f := range rep.Findings {
		if i == 5 {
			fmt.Fprintf(c.Stdout, "  … and %d more (--json lists them)\n", len(rep.Findings)-i)
			break
		}
		fmt.Fprintf(c.Stdout, "  %s\n", f)
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tkept\tunreadable rowids\tinvalid\tgarbled\tredigested\torphans dropped")
	for _, t := range rep.Tables {
		unread := rowidRanges(t.Unreadable)
		if t.Missing {
			unread = "the whole table (not in the damaged schema)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\n", t.Name, t.Kept, unread, t.Invalid, t.Garbled, t.Redigested, t.Orphans)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printFromPages(c.Stdout, rep.Tables)
	printLostRows(c.Stdout, rep.Tables)
	printMarkersLost(c.Stdout, rep.MarkersLost) // salvage_rows.go
	if rep.ThreadsRebuilt > 0 {
		fmt.Fprintf(c.Stdout, "%s rebuilt from their messages (their rows were lost: title and metadata are gone)\n", count(rep.ThreadsRebuilt, "thread"))
	}
	c.printWAL(rep.WAL)
	return c.printEnd(rep)
}

// printEnd prints the losses, where the damaged file is and what check
// says now.
func (c *SalvageCommand) printEnd(rep *engine.SalvageReport) error {
	c.printLost(rep)
	c.printKept(rep)
	if len(rep.Problems) > 0 {
		fmt.Fprintln(c.Stderr, "mnemo salvage: indexes rebuilt, but check still finds:")
		for _, p := range rep.Problems {
			fmt.Fprintf(c.Stderr, "  %s\n", p)
		}
		return nil
	}
	if rep.WAL != nil && rep.WAL.Lost() && rep.WAL.Kept != "" {
		fmt.Fprintf(c.Stdout, "indexes rebuilt; mnemo check fails, naming %s, until it is deleted (the warning above; the lost seqs are recorded as known losses)\n", filepath.Base(rep.WAL.Kept))
		return nil
	}
	if len(rep.Lost) == 0 { // "no message lost" above: no seqs to record
		fmt.Fprintln(c.Stdout, "indexes rebuilt; mnemo check: ok")
		return nil
	}
	fmt.Fprintln(c.Stdout, "indexes rebuilt; mnemo check: ok (the lost seqs are recorded as known losses)")
	return nil
}

// printKept says where the damaged file and the indexes derived from it
// are kept and what to do with them: delete them once satisfied (they may
// still hold erased text), unless the report could not count a loss
// (UncountedMessages), or cannot tell whether there was one (Resumed: the
// interrupted salvage's report was lost): then only to keep them, since
// the damaged file is the only copy of those messages. (It told to keep
// the file and, on the next line, to delete it.)
func (c *SalvageCommand) printKept(rep *engine.SalvageReport) {
	if u := rep.UncountedMessages; len(u) > 0 {
		fmt.Fprintf(c.Stdout, "the damaged file is kept as %s (with its -wal and -shm, if any): keep it, it is the only copy of the messages with rowids %s, which the salvage could not read and cannot count (restore them from a backup, or have the file's pages read by hand; it may still hold erased text)\n", rep.Damaged, rowidRanges(u))
		if rep.KeptIndex != "" {
			fmt.Fprintf(c.Stdout, "the indexes derived from it are kept as %s: keep them too, their shard snapshots may hold the text of those messages (nothing was restored from them)\n", rep.KeptIndex)
		}
		return
	}
	if rep.Resumed {
		fmt.Fprintf(c.Stdout, "the damaged file is kept as %s (with its -wal and -shm, if any): keep it, and the indexes kept beside it, if any: the interrupted salvage's report was lost, so whether it lost messages it could not count (their rowids unreadable while the threads table lost rows too) is unknown, and the file would be the only copy of them (it may still hold erased text)\n", rep.Damaged)
		return
	}
	fmt.Fprintf(c.Stdout, "the damaged file is kept as %s (with its -wal and -shm, if any); it may still hold erased text: delete it once you are satisfied\n", rep.Damaged)
	if rep.KeptIndex != "" {
		fmt.Fprintf(c.Stdout, "the indexes derived from it are kept as %s (its shard snapshots may hold the text of lost messages; nothing was restored from them); they may still hold erased text: delete them once you are satisfied\n", rep.KeptIndex)
	}
}

// printWAL says on standard error, as "mnemo salvage: note: …" or
// "mnemo salvage: warning: …", what the salvage found in the write-ahead
// log of its copy (engine.SalvageReport.WAL), when it held commits past a
// damaged frame: a note when its repair applied them all, else a warning
// that they are not in the database, naming where they are kept. (They
// were on standard output, among the results, unlike check's notes.)
func (c *SalvageCommand) printWAL(d *engine.WALDamage) {
	switch {
	case d == nil:
	case d.SetAside:
		c.printWALSetAside(d)
	case d.Repaired:
		fmt.Fprintf(c.Stderr, "mnemo salvage: note: the write-ahead log was found damaged (%s) and repaired exactly in the salvaged copy: every commit was applied\n", frameList(d.DamagedFrames))
	case d.Kept != "":
		fmt.Fprintf(c.Stderr, "mnemo salvage: warning: the write-ahead log was found damaged (%s): %s (%s) after frame %d could not be applied and are not in the salvaged database; they are kept only in %s (restore from a backup taken after them, or accept the loss; mnemo check names it until it is deleted)\n",
			frameList(d.DamagedFrames), count(d.CommitsNotApplied, "commit"), count(d.FramesNotApplied, "frame"), d.AppliedThroughFrame, d.Kept)
	default:
		fmt.Fprintf(c.Stderr, "mnemo salvage: warning: the write-ahead log %s is damaged (%s): %s (%s) after frame %d cannot be applied and are not in %s; the next open keeps the log as %s-wal.damaged-<UTC time>: run mnemo check\n",
			d.Log, frameList(d.DamagedFrames), count(d.CommitsNotApplied, "commit"), count(d.FramesNotApplied, "frame"), d.AppliedThroughFrame, engine.DatabaseFile, engine.DatabaseFile)
	}
}

// printWALSetAside says printWAL's d when the directory's -shm said a
// checkpoint had copied frames past the log's valid prefix into mnemo.db:
// the salvage read its copy without the log.
func (c *SalvageCommand) printWALSetAside(d *engine.WALDamage) {
	lost, into := "nothing was lost", "the salvaged database"
	if d.Kept == "" {
		into = engine.DatabaseFile
	}
	if d.Lost() {
		lost = fmt.Sprintf("%s (%s) after frame %d are NOT in %s", count(d.CommitsNotApplied, "commit"), count(d.FramesNotApplied, "frame"), d.AppliedThroughFrame, into)
	}
	if d.Kept == "" {
		fmt.Fprintf(c.Stderr, "mnemo salvage: note: the write-ahead log %s is damaged, and its -shm says a checkpoint had copied its frames through %d into %s already: %s was read without it; %s; the next open sets the log aside unapplied, kept as %s-wal.damaged-<UTC time>\n",
			d.Log, d.AppliedThroughFrame, engine.DatabaseFile, engine.DatabaseFile, lost, engine.DatabaseFile)
		return
	}
	if d.Lost() {
		lost += "; they are kept only in " + d.Kept + " (restore from a backup taken after them, or accept the loss; mnemo check names it until it is deleted)"
	}
	fmt.Fprintf(c.Stderr, "mnemo salvage: note: the write-ahead log was found damaged, and its -shm says a checkpoint had copied its frames through %d into %s already: the salvage read %s without it (applying it would have rolled pages back; it is kept as %s); %s\n",
		d.AppliedThroughFrame, engine.DatabaseFile, engine.DatabaseFile, d.Kept, lost)
}

// printLost lists the threads' lost seqs.
func (c *SalvageCommand) printLost(rep *engine.SalvageReport) {
	if u := rep.UncountedMessages; len(u) > 0 {
		fmt.Fprintf(c.Stdout, "messages with rowids %s unreadable: how many is unknown (the threads table lost rows too, and with them the last seqs the losses are counted against); keep the damaged file below\n", rowidRanges(u))
	}
	if len(rep.Lost) == 0 && len(rep.UncountedMessages) > 0 {
		return
	}
	if len(rep.Lost) == 0 {
		if rep.WAL != nil && rep.WAL.Lost() {
			fmt.Fprintln(c.Stdout, "no message of what SQLite recovered was lost (the write-ahead log's commits above aside)")
			return
		}
		if rep.Resumed {
			fmt.Fprintln(c.Stdout, "no message loss is recorded (the interrupted salvage's report, which would name a loss it could not count, was lost)")
			return
		}
		fmt.Fprintln(c.Stdout, "no message lost")
		return
	}
	threads := map[string]bool{}
	for _, l := range rep.Lost {
		threads[l.ThreadID] = true
	}
	fmt.Fprintf(c.Stdout, "%s lost in %s:\n", count(rep.LostMessages(), "message"), count(len(threads), "thread"))
	printLostRanges(c.Stdout, rep.Lost)
}

// printLostRanges writes one line per lost range.
func printLostRanges(w interface{ Write([]byte) (int, error) }, lost []engine.LostRange) {
	for _, l := range lost {
		seqs := fmt.Sprintf("seq %d", l.FromSeq)
		if l.ToSeq > l.FromSeq {
			seqs = fmt.Sprintf("seqs %d-%d", l.FromSeq, l.ToSeq)
		}
		fmt.Fprintf(w, "  thread %s (resource %s): %s, lost to the salvage of %s\n", l.ThreadID, l.ResourceID, seqs, l.SalvagedAt.Format("2006-01-02 15:04 UTC"))
	}
}

// rowidRanges formats unreadable rowid ranges: "-" for none.
func rowidRanges(rs [][2]int64) string {
	if len(rs) == 0 {
		return "-"
	}
	var parts []string
	for _, r := range rs {
		switch {
		case r[1] == math.MaxInt64:
			parts = append(parts, fmt.Sprintf("%d-end", r[0]))
		case r[0] == r[1]:
			parts = append(parts, fmt.Sprint(r[0]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
	}
	return strings.Join(parts, ", ")
}
