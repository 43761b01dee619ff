package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

// This file says what the record of damage beside a data directory's
// mnemo.db (mnemo.db.damage-seen: store.ReadDamageMark) means for the
// user, naming the user's own command: it keeps new data out of every
// process until a full check finds the file sound (mnemo check --full) or
// a salvage replaces it. The engine's refusal names no command.

// errRecordRemains is the error of a check that found nothing while the
// record of damage remains (a quick check: only a full one removes it):
// exit 1, since every process still refuses new data, so a monitor
// reading the exit code or --json's ok does not read the directory as
// healthy. Its note (printRecordNote) says what to run.
var errRecordRemains = errors.New("the record of damage remains (see the note above): nothing new is stored until a full check finds the database sound and removes it")

// damageRecord returns the record of damage beside t's mnemo.db, nil
// when there is none and on Postgres; one that cannot be read is one
// whose Error says why.
func (t target) damageRecord() *store.DamageMark {
	if t.dir == "" {
		return nil
	}
	path := filepath.Join(t.dir, engine.DatabaseFile)
	m, err := store.ReadDamageMark(path)
	if err != nil {
		return &store.DamageMark{Error: err.Error(), Path: path + store.DamageMarkSuffix}
	}
	return m
}

// recordFate says in --json's vocabulary what became of the record of
// damage over a command that may remove it (check, salvage): before is
// the record when it began, after when it ended. "remains" when after is
// there, "removed" when only before was, "" (the member absent) when there
// was none.
func recordFate(before, after *store.DamageMark) string {
	switch {
	case after != nil:
		return "remains"
	case before != nil:
		return "removed"
	}
	return ""
}

// recordSeen says what a record of damage holds: "found damaged at <UTC
// time>: <error>".
func recordSeen(m *store.DamageMark) string {
	if m.Seen.IsZero() {
		return "found damaged: " + m.Error
	}
	return "found damaged at " + m.Seen.UTC().Format(time.RFC3339) + ": " + m.Error
}

// printRecordAdvice says, after printCorruptAdvice's restore line, what
// clears t's record of damage m: the full check of the restored file,
// which is all that is left when it was restored already.
func printRecordAdvice(w io.Writer, t target, m *store.DamageMark) {
	fmt.Fprintf(w, "Every process refuses new data while the record of the damage, %s, is there (%s): a full check that finds the file sound removes it (a quick check keeps it). Once %s is restored (or if it was restored already), run: %s\n",
		m.Path, recordSeen(m), engine.DatabaseFile, t.mnemo("check", "--full"))
}

// printRecordNote says, after a check that passed, what became of the
// record of damage: before is the record when the check began, after when
// it ended (nil: none). A full check that found the file sound removed it;
// a quick one keeps it, and says which check removes it.
func (c *CheckCommand) printRecordNote(before, after *store.DamageMark, full bool) {
	switch {
	case before != nil && after == nil:
		fmt.Fprintf(c.Stderr, "mnemo check: note: the record of damage %s (%s) was removed: the full check found %s sound, and new data is stored again\n",
			before.Path, recordSeen(before), engine.DatabaseFile)
	case after != nil && !full:
		fmt.Fprintf(c.Stderr, "mnemo check: note: the record of damage %s (%s) remains: nothing new is stored until a full check finds %s sound and removes it; run: %s\n",
			after.Path, recordSeen(after), engine.DatabaseFile, c.target().mnemo("check", "--full"))
	}
}
