package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mnemo-go/mnemo/engine"
)

// openEngine opens the engine with cfg: every command's open passes here
// (open, openAt, openObserved, openService, serve, observe). When the open
// found the write-ahead log damaged (engine.Engine.WALDamage) it says so
// on standard error in one line, since only the first open after the
// damage finds it: the engine's own Warn goes to cfg.Logger, which only
// serve and mcp set (then this line is not printed: the log has it), and
// mnemo check reports it in its answer. Standard output, --json answers
// included, is left alone. An engine without a log or an events channel
// (a one-shot command's) sends its events to the command's eventNotes,
// which Main.Run says after the command (eventnotes.go).
func (m *Main) openEngine(ctx context.Context, cfg engine.Config) (*engine.Engine, error) {
	oneShot := cfg.Events == nil && cfg.Logger == nil // not serve, mcp or check
	if oneShot {
		n := m.eventNotesFor()
		cfg.Events, n.keptOutbox = n.ch, cfg.KeepOutbox
		n.target = target{dir: cfg.Dir, dsn: cfg.Postgres}
		if t := m.target(); t.dir == cfg.Dir && t.dsn == cfg.Postgres {
			n.target = t // the memory the user named: as they named it
		}
	}
	if interruptAt != nil {
		interruptAt("open")
	}
	e, err := engine.Open(ctx, cfg)
	err = openStopped(ctx, cfg.Dir, err)
	if err == nil && oneShot {
		m.notes.engines = append(m.notes.engines, e)
	}
	if err == nil && cfg.Logger == nil && m.command != "check" {
		printWALDamage(m.Stderr, e.WALDamage())
	}
	if err == nil && cfg.Logger == nil {
		printKeptOrphans(m.Stderr, e.KeptOrphans())
	}
	return e, err
}

// printKeptOrphans writes, when the open kept the files of a database that
// was gone (engine.Engine.KeptOrphans), one line to w naming them: the
// open created a new, empty database beside them (before, it deleted
// them without a word).
func printKeptOrphans(w io.Writer, kept []string) {
	if len(kept) == 0 {
		return
	}
	fmt.Fprintf(w, "mnemo: warning: %s was missing, but the write-ahead log or the indexes of the database that was there were not; they may hold the only copy of its text and are kept as %s; a new, empty %s was created (to get the old one back, restore %s from a backup; mnemo check lists the kept files: delete them once no longer needed)\n",
		engine.DatabaseFile, strings.Join(kept, ", "), engine.DatabaseFile, engine.DatabaseFile)
}

// goneAdvice is what to do about g, a database file missing beside its
// write-ahead log or indexes, or a link to nothing. Before, the hint of a
// directory that is none ("a data directory is created by writing to it")
// led to the write that puts them aside under a new, empty database, and
// a write through a link to nothing advised deleting the log.
func goneAdvice(g *engine.GoneDatabaseError) string {
	db := engine.DatabaseFile
	s := "What to do: restore " + db + " from a backup into " + g.Dir + " before any write (ingest, wm set, serve and mcp " +
		"would create a new, empty database, keeping the files aside as " + db + ".damaged-<UTC time>-wal, -shm, -index)."
	if g.Link != "" {
		// No write goes through a link to nothing (engine's
		// notRegularDatabase); the advice was to delete the log.
		s = "What to do: make " + g.Link + " reachable again (mount its volume, move the file back) and run the command again; " +
			"or replace the link with " + db + " restored from a backup (" + backupsDoc + "). Nothing is written to " + g.Dir + " meanwhile."
	}
	if g.WALBytes > 0 {
		s += " If the file you restore is the very one this log was written with (moved away, copied without it), leave " +
			db + "-wal and -shm beside it; if it is an older copy, move them out of the directory first: SQLite would apply this log to it."
	}
	return s + ` docs/operations.md, "A database file that is gone".`
}

// printWALDamage writes d, when not nil, as one line to w: a note when the
// log was repaired exactly (nothing lost), else a warning naming the kept
// copy, what was not applied, and mnemo check.
func printWALDamage(w io.Writer, d *engine.WALDamage) {
	if d == nil {
		return
	}
	where := frameList(d.DamagedFrames) + missingList(d.BytesMissingAt)
	if d.SetAside {
		lost := "nothing was lost"
		if d.FramesNotApplied > 0 {
			lost = fmt.Sprintf("%s (%s) after frame %d are NOT in %s; they are kept only in %s: run mnemo check",
				count(d.CommitsNotApplied, "commit"), count(d.FramesNotApplied, "frame"), d.AppliedThroughFrame, engine.DatabaseFile, d.Kept)
		}
		fmt.Fprintf(w, "mnemo: note: the write-ahead log %s was found damaged (%s), and a checkpoint had copied its frames through %d into %s already: the log was set aside unapplied (kept as %s) and %s opened alone; %s\n",
			d.Log, where, d.AppliedThroughFrame, engine.DatabaseFile, d.Kept, engine.DatabaseFile, lost)
		return
	}
	if d.Before != "" {
		fmt.Fprintf(w, "mnemo: note: %s as it was before the damaged write-ahead log's valid prefix was applied is kept as %s: if %s reads wrong (mnemo check), restore it from that copy\n",
			engine.DatabaseFile, d.Before, engine.DatabaseFile)
	}
	if d.Before != "" && !d.Lost() && !d.Repaired {
		return // damage in the log's last transaction: the copy is all there is to say
	}
	if d.Repaired {
		fmt.Fprintf(w, "mnemo: note: the write-ahead log %s was found damaged (%s) and repaired exactly: every commit was applied, nothing was lost; the damaged log is kept as %s\n",
			d.Log, where, d.Kept)
		return
	}
	fmt.Fprintf(w, "mnemo: warning: the write-ahead log %s was found damaged (%s): %s (%s) after frame %d were NOT applied and are not in %s; they are kept only in %s: run mnemo check\n",
		d.Log, where, count(d.CommitsNotApplied, "commit"), count(d.FramesNotApplied, "frame"),
		d.AppliedThroughFrame, engine.DatabaseFile, d.Kept)
}

// frameList says frames ns as "frame 7" or "frames 7, 9, 12" (the first
// five, then "and N more"); none: "its header" (only the log's header
// failed its checks).
func frameList(ns []int) string {
	if len(ns) == 0 {
		return "its header"
	}
	parts := make([]string, 0, 6)
	for _, n := range ns[:min(len(ns), 5)] {
		parts = append(parts, fmt.Sprint(n))
	}
	if len(ns) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", len(ns)-5))
	}
	if len(ns) == 1 {
		return "frame " + parts[0]
	}
	return "frames " + strings.Join(parts, ", ")
}

// missingList says where bytes were missing from the log
// (engine.WALDamage.BytesMissingAt): "; bytes missing at offset 4096" or
// "; bytes missing at offsets 4096, 81920"; none: "".
func missingList(offs []int64) string {
	if len(offs) == 0 {
		return ""
	}
	parts := make([]string, len(offs))
	for i, o := range offs {
		parts[i] = fmt.Sprint(o)
	}
	if len(offs) == 1 {
		return "; bytes missing at offset " + parts[0]
	}
	return "; bytes missing at offsets " + strings.Join(parts, ", ")
}
