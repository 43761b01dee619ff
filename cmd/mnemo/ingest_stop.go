package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
)

// ingestFailed reports an import that stopped on err. A malformed record is
// a problem of the file, not of the command line: the error no longer
// matches engine.ErrInvalidInput (which Run turns into the usage exit code
// 2), so ingest exits 1. With --strict it says what was stored before the
// record: those messages stay (an import is not one transaction), and
// ingesting the fixed file again stores only the rest.
func (c *IngestCommand) ingestFailed(ctx context.Context, label string, err error, strict bool, rep *importer.Report) error {
	if ctx.Err() != nil {
		return interrupted(label, err, rep)
	}
	if strict && rep != nil {
		earlier := ""
		if rep.Duplicates > 0 {
			earlier = fmt.Sprintf(" (%d of them by an earlier import)", rep.Duplicates)
		}
		stored := fmt.Sprintf("the %d messages before it are stored%s and stay", rep.Messages+rep.Duplicates, earlier)
		if rep.Messages+rep.Duplicates == 1 {
			stored = fmt.Sprintf("the message before it is stored%s and stays", earlier)
		}
		fmt.Fprintf(c.Stderr, "mnemo ingest: --strict stopped %s at its first malformed record: %s stored; fix the record and ingest the file again (stored messages are not stored twice)\n",
			label, stored)
	}
	if rep != nil && rep.Error != "" {
		return stoppedPartWay(label, rep, err)
	}
	var re *importer.RecordError
	if errors.As(err, &re) {
		// "FILE line 3: invalid role: …": the record names the file.
		return fmt.Errorf("%s: %s", re.Record(), re.Reason())
	}
	// The command names itself: no package prefix, and the file once
	// (the importer's errors about the whole file name it already:
	// "importer: FILE: LoCoMo data must be …").
	msg := strings.TrimPrefix(err.Error(), "importer: ")
	if strings.HasPrefix(msg, label+": ") {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %s", label, msg)
}

// stoppedPartWay is the error of the import of label that the engine
// stopped part-way (rep.Error: a quota refusing, the database gone): where
// it stopped, what is stored (it stays, an import being no transaction),
// what is not, and that the same ingest run again once the cause is fixed
// stores only the rest (every message is stored by its id, derived when
// the file has none). "FILE: stopped at line 10 (thread t2): quota
// exceeded: …; 9 messages of it are stored and stay; not stored: 12
// messages of thread t2 from there and every record after them; …".
// cause is the import's error: only one matching engine.ErrNoSpace or
// engine.ErrDatabaseCorrupt stays in the chain (advisedStop).
func stoppedPartWay(label string, rep *importer.Report, cause error) error {
	n := rep.Messages + rep.Duplicates
	stored := storedOfIt(n)
	if rep.Duplicates > 0 && n > 0 {
		stored += fmt.Sprintf(" (%d of them by an earlier import)", rep.Duplicates)
	}
	err := fmt.Errorf("%s: stopped at %s (thread %s): %s; %s; not stored: %s of thread %s from there and every record after them; once the cause is fixed, run the same ingest again to store the rest (messages already stored are not stored twice)",
		label, rep.Stopped, rep.StoppedThread, rep.Error, stored, count(rep.NotStored, "message"), rep.StoppedThread)
	if errors.Is(cause, engine.ErrNoSpace) || errors.Is(cause, engine.ErrDatabaseCorrupt) {
		// exitStatus then says how to get the data out (noSpaceAdvice),
		// or how to restore or salvage the damaged file and clear its
		// record, naming the user's own command (printCorruptAdvice).
		return &advisedStop{msg: err.Error(), err: cause}
	}
	return err
}

// storedOfIt says that n messages of a file are stored and stay (an
// import is not one transaction): "none of its messages is stored", "1
// message of it is stored and stays", "N messages of it are stored and
// stay".
func storedOfIt(n int) string {
	switch n {
	case 0:
		return "none of its messages is stored"
	case 1:
		return "1 message of it is stored and stays"
	}
	return count(n, "message") + " of it are stored and stay"
}

// advisedStop is stoppedPartWay's error for an import a full disk or a
// damaged database file stopped: its text, and errors.Is sees
// engine.ErrNoSpace or engine.ErrDatabaseCorrupt, for exitStatus's advice.
// Only then: a stop's other causes (a quota, invalid input) are said as
// text, not taken for a usage error by exitStatus.
type advisedStop struct {
	msg string
	err error
}

func (e *advisedStop) Error() string { return e.msg }
func (e *advisedStop) Unwrap() error { return e.err }

// interruptedError is an ingest its context stopped (SIGINT, SIGTERM):
// its text says what was stored and how to store the rest, where the
// step that saw the cancel said "FILE: begin: context canceled". errors.Is
// sees err and context.Canceled, whatever err is: the step that saw the
// cancel may have failed with an error of its own that does not wrap it
// (SQLite's "interrupted (9)" from a statement the cancel stopped), and
// exitStatus says "interrupted" for context.Canceled.
type interruptedError struct {
	msg string
	err error
}

func (e *interruptedError) Error() string   { return e.msg }
func (e *interruptedError) Unwrap() []error { return []error{e.err, context.Canceled} }

// interrupted is the error of the import of label stopped by its context
// (err) after rep's messages were stored (nil: none): they stay, an import
// being no transaction, and the same ingest run again stores the rest
// (the FILEs before label were stored whole; stored messages are not
// stored twice).
func interrupted(label string, err error, rep *importer.Report) error {
	n := 0
	if rep != nil {
		n = rep.Messages + rep.Duplicates
	}
	stored := storedOfIt(n)
	return &interruptedError{fmt.Sprintf("%s: %s; run the same ingest again to store the rest (messages already stored are not stored twice)", label, stored), err}
}

// unindexed is said after an interrupted ingest's error: what the
// indexes still owe what is stored (engine.Owed), as a search sees it, and
// what computes it; "" when nothing is owed or it cannot be counted. A
// stored message is found by its words at once (the next search fills the
// resource's index from the store); what waits is its embedding, so the
// search's vector channel says "degraded" meanwhile. An interrupted ingest
// of 12,900 messages said nothing of it, and a later check spent 1m14s
// indexing them (fix52); then it said "N outbox rows are not indexed yet
// (search does not find what they hold)", which the next search
// disproved (readme54).
func (c *IngestCommand) unindexed(ctx context.Context, e *engine.Engine) string {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	o, err := e.Owed(sctx)
	if err != nil || o.Embeddings == 0 && o.Erasures == 0 {
		return ""
	}
	var owed []string
	if o.Embeddings > 0 {
		have, them := "have", "them by their"
		if o.Embeddings == 1 {
			have, them = "has", "it by its"
		}
		owed = append(owed, fmt.Sprintf("%s %s no embedding yet (search finds %s words only until then)", count(o.Embeddings, "stored message"), have, them))
	}
	if o.Erasures > 0 {
		owed = append(owed, fmt.Sprintf("the index files still hold the text of %s (no search returns it)", count(o.Erasures, "erased message")))
	}
	return fmt.Sprintf("; %s: the same ingest run again completes the indexing first; to complete it alone, run: %s", strings.Join(owed, "; "), c.target().mnemo("check"))
}
