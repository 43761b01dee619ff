package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// idList is a repeatable flag; each value may also hold comma-separated ids.
type idList []string

func (l *idList) String() string { return strings.Join(*l, ",") }

func (l *idList) Set(v string) error {
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*l = append(*l, id)
		}
	}
	return nil
}

// DeleteCommand is `mnemo delete`: erase messages, a thread or a resource,
// and everything derived from them. Like every command it embeds Main: the
// process environment and the global flags.
type DeleteCommand struct{ *Main }

// Run erases messages, a thread or a resource (engine.DeleteMessages,
// DeleteThread, DeleteResource) and prints what was removed and invalidated.
// It asks for confirmation on a terminal unless --yes, and refuses (exit 2)
// without --yes when standard input is not a terminal. Its stages: the
// flags checked (parseArgs), the memory opened, what to erase described
// and confirmed (confirmErase), erased (erase), and reported.
func (c *DeleteCommand) Run(ctx context.Context, args []string) error {
	a, err := c.parseArgs(args)
	if err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return notErased(ctx, err, "stopped while the data directory was opening")
	}
	defer e.CloseContext(ctx)

	what, err := describeTarget(ctx, e, a.msgs, a.thread, a.resource)
	if err != nil {
		return notErased(ctx, err, "stopped while what to erase was being read")
	}
	if ok, err := c.confirmErase(a, what); !ok {
		return err
	}
	if interruptAt != nil {
		interruptAt("delete:erase")
	}
	stoppedBefore := ctx.Err() != nil
	res, err := a.erase(ctx, e)
	if res == nil {
		// No result: the erasure's transaction did not commit, as far as
		// this process knows (see erasureUnknown).
		if !stoppedBefore && c.DB != "" {
			return erasureUnknown(ctx, err, what)
		}
		return notErased(ctx, err, "stopped before the erasure of "+what+" committed")
	}
	if perr := c.report(res, err, a.asJSON); perr != nil {
		return perr
	}
	c.noteKeptDamaged(res.KeptDamaged)
	if err == nil && len(res.NotFound) > 0 && len(res.Messages) == 0 {
		// Nothing asked for was stored: say so in the exit code, for scripts.
		return fmt.Errorf("no message found: %s", strings.Join(res.NotFound, ", "))
	}
	return owedPurge(err)
}

// deleteArgs is what `mnemo delete` was asked, its flags checked: exactly
// one of msgs, thread and resource is set.
type deleteArgs struct {
	fs       *flag.FlagSet // confirm's refusal names its flags
	msgs     idList        // --message and the ids after it
	thread   string        // --thread
	resource string        // --resource
	yes      bool          // --yes
	asJSON   bool          // --json
}

// parseArgs parses the flags of `mnemo delete` from args and checks them:
// a usage error for none, or more than one, of --message, --thread and
// --resource, for arguments without --message, and for an id given empty
// or not an id.
func (c *DeleteCommand) parseArgs(args []string) (deleteArgs, error) {
	fs := c.flags("delete", "(--message ID... | --thread T | --resource R)")
	a := deleteArgs{fs: fs}
	fs.Var(&a.msgs, "message", "message `ID` to erase (repeatable, or comma-separated; more ids may follow as arguments)")
	fs.StringVar(&a.thread, "thread", "", "erase this thread and everything derived from it")
	fs.StringVar(&a.resource, "resource", "", "erase every thread of this resource and its working memory")
	fs.BoolVar(&a.yes, "yes", false, "do not ask for confirmation")
	fs.BoolVar(&a.asJSON, "json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return deleteArgs{}, err
	}
	if len(a.msgs) > 0 {
		a.msgs = append(a.msgs, fs.Args()...)
	} else if fs.NArg() > 0 {
		return deleteArgs{}, c.usagef(fs, "unexpected arguments %q (message ids follow --message)", fs.Args())
	}
	first := "" // --message "" (or ","): no id at all
	if len(a.msgs) > 0 {
		first = a.msgs[0]
	}
	if err := c.checkNeededIDs(fs, "delete needs one of --message, --thread, --resource", "--thread", a.thread, "--resource", a.resource, "--message", first); err != nil {
		return deleteArgs{}, err // first: --thread "" is empty, not missing
	}
	n := 0
	for _, set := range []bool{len(a.msgs) > 0, a.thread != "", a.resource != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return deleteArgs{}, c.usagef(fs, "give exactly one of --message, --thread, --resource")
	}
	for _, id := range a.msgs {
		if err := c.checkIDs(fs, "--message", id); err != nil {
			return deleteArgs{}, err
		}
	}
	return a, nil
}

// confirmErase reports whether the erasure of what (describeTarget) may
// go on: at once with --yes; else an error when none of the message ids
// is stored (nothing to confirm), else the answer to confirm's question.
func (c *DeleteCommand) confirmErase(a deleteArgs, what string) (bool, error) {
	if a.yes {
		return true, nil
	}
	if strings.HasPrefix(what, noneStored) {
		// Nothing to confirm: it said "refusing to erase 0 messages (0 of
		// 1 id stored) without --yes" (exit 2).
		ids := "that id"
		if len(a.msgs) > 1 {
			ids = "any of those ids"
		}
		return false, fmt.Errorf("no message found: %s: nothing is stored under %s, so nothing was erased", strings.Join(a.msgs, ", "), ids)
	}
	return c.confirm(a.fs, what)
}

// erase erases what a names from e: its messages, its thread or its
// resource.
func (a deleteArgs) erase(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
	switch {
	case len(a.msgs) > 0:
		return e.DeleteMessages(ctx, a.msgs...)
	case a.thread != "":
		return e.DeleteThread(ctx, a.thread)
	}
	return e.DeleteResource(ctx, a.resource)
}

// notErased is err, the error of a delete its context stopped (SIGINT,
// SIGTERM) before its erasure committed (when: "stopped while the data
// directory was opening"), said as what it is: nothing was erased, and
// the same delete run again erases it. It said only "context canceled" (brief
// cli45 #5), leaving the user to wonder whether anything was erased. err
// itself when the delete was not interrupted.
func notErased(ctx context.Context, err error, when string) error {
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	return &interruptedError{fmt.Sprintf("nothing was erased (%s); run the same delete again to erase it", when), err}
}

// erasureUnknown is err, the error of a delete on Postgres its context
// stopped while the erasure ran, said as what is known: the stop may have
// come while COMMIT was on its way, and then Postgres may have committed
// the erasure though no answer came back (pgx closes the connection of a
// cancelled query), so "nothing was erased" could be false (rev47). The
// same delete run again erases what is left, or says nothing is found.
// On SQLite the commit is the process's own: a delete stopped before it
// returned erased nothing (notErased). err itself when the delete was
// not interrupted.
func erasureUnknown(ctx context.Context, err error, what string) error {
	if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	return &interruptedError{fmt.Sprintf("stopped while the erasure of %s ran on Postgres: it may have committed just before the stop, or not at all; run the same delete again: it erases what is left, or finds nothing", what), err}
}

// eraseReport is what `mnemo delete --json` prints: the engine's result
// and, when the erasure committed but its physical purge did not finish
// (engine.ErrEraseIncomplete), why, as the DELETE routes' purgeIncomplete.
type eraseReport struct {
	*engine.EraseResult
	PurgeIncomplete string `json:"purgeIncomplete,omitempty"`
}

// report prints an erasure's result, err being the erasure's error: an
// incomplete purge (engine.ErrEraseIncomplete, the rows are erased) is
// said as owed, never as done, on standard output (why: owedPurge's
// error, on standard error).
func (c *DeleteCommand) report(res *engine.EraseResult, err error, asJSON bool) error {
	incomplete := ""
	if errors.Is(err, engine.ErrEraseIncomplete) {
		incomplete = err.Error()
	}
	if asJSON {
		if res.Messages == nil {
			res.Messages = []string{} // nothing erased: [], as DELETE /v1/… answers, not null
		}
		if perr := c.printJSON(eraseReport{res, incomplete}); perr != nil {
			return perr
		}
	} else {
		c.printErase(res, incomplete != "")
	}
	return nil
}

// owedPurge is the error Run returns for err, an erasure's: one that
// committed but whose physical purge did not finish
// (engine.ErrEraseIncomplete) gets what follows, said in the one line
// exitStatus prints (report printed it twice more on standard error
// besides the summary: four times in all, readme51 F13); others as they
// are.
func owedPurge(err error) error {
	if !errors.Is(err, engine.ErrEraseIncomplete) {
		return err
	}
	return fmt.Errorf("%w; the data can no longer be read, and the next delete or open finishes the purge", err)
}

// noteKeptDamaged warns that the damaged databases a salvage kept in the
// data directory (with their -wal and -shm), the copies of mnemo.db an
// open kept before applying a damaged log, and the damaged write-ahead
// logs an open kept with their -shm copies (engine.EraseResult.
// KeptDamaged) are not reached by the erasure: they may still hold what
// was erased. It counts the database copies and the log and -shm copies
// apart, and names every one.
func (c *DeleteCommand) noteKeptDamaged(kept []string) {
	if len(kept) == 0 {
		return
	}
	dbs, logs, indexes := countKept(kept)
	var what []string
	if dbs > 0 {
		what = append(what, copiesOf(dbs, "the database file"))
	}
	if logs > 0 {
		what = append(what, copiesOf(logs, "its write-ahead log or -shm"))
	}
	if indexes > 0 {
		what = append(what, copiesOf(indexes, "its indexes"))
	}
	fmt.Fprintf(c.Stderr, "mnemo delete: note: %s, kept in %s by a salvage or by an open that found the write-ahead log damaged (%s), may still hold what was erased; an erasure does not reach them: delete them once the salvage is judged complete, or the log is no longer needed\n",
		strings.Join(what, " and "), c.Dir, strings.Join(kept, ", "))
}

// countKept counts the kept files of engine.KeptDamaged that are copies of
// the database file (a salvage's mnemo.db.damaged-*, an open's
// mnemo.db.before-wal-*) and those that are copies of a write-ahead log or
// its -shm (a salvage's mnemo.db.damaged-*-wal and -shm, an open's
// mnemo.db-wal.damaged-* and mnemo.db-shm.damaged-*), and the index
// directories a salvage kept (mnemo.db.damaged-*-index).
func countKept(kept []string) (dbs, logs, indexes int) {
	salvaged, opened, befores := splitKept(kept) // check.go
	dbs, logs = len(befores), len(opened)
	for _, k := range salvaged {
		switch {
		case strings.HasSuffix(k, "-wal") || strings.HasSuffix(k, "-shm"):
			logs++
		case strings.HasSuffix(k, "-index"):
			indexes++
		default:
			dbs++
		}
	}
	return dbs, logs, indexes
}

// copiesOf says n copies of what: "1 copy of the database file", "2
// copies of …".
func copiesOf(n int, what string) string {
	if n == 1 {
		return "1 copy of " + what
	}
	return fmt.Sprintf("%d copies of %s", n, what)
}

// confirm asks on the terminal whether to erase what; false (with a nil
// error after "nothing erased") unless the answer is y or yes. Without a
// terminal it is a usage error: a script must say --yes, so a pipe never
// erases by accident.
func (c *DeleteCommand) confirm(fs *flag.FlagSet, what string) (bool, error) {
	if !isTerminal(c.Stdin) {
		// Refused, not misshapen: its line and the hint, not the usage.
		return false, c.valuef(fs, "refusing to erase %s without --yes: standard input is not a terminal, so there is no one to confirm", what)
	}
	fmt.Fprintf(c.Stderr, "Erase %s? This cannot be undone. [y/N] ", what)
	line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintln(c.Stderr, "mnemo delete: nothing erased")
		return false, nil
	}
	return true, nil
}

// noneStored begins describeTarget's text of message ids none of which
// is stored.
const noneStored = "0 messages"

// describeTarget says what a delete is about to erase, for the prompt.
func describeTarget(ctx context.Context, e *engine.Engine, msgs []string, thread, resource string) (string, error) {
	switch {
	case len(msgs) > 0:
		found, err := e.MessagesByID(ctx, "", msgs...)
		if err != nil {
			return "", err
		}
		if len(found) == 0 {
			return fmt.Sprintf("%s (0 of %s stored)", noneStored, count(len(msgs), "id")), nil
		}
		return fmt.Sprintf("%s (%d of %s stored)", count(len(found), "message"), len(found), count(len(msgs), "id")), nil
	case thread != "":
		t, err := e.GetThread(ctx, thread)
		if errors.Is(err, engine.ErrThreadNotFound) {
			// Runs only: a context loaded before the first append, or just
			// after the thread was erased (DeleteThread erases them).
			owners, oerr := e.ThreadlessOwners(ctx, thread)
			if oerr != nil || len(owners) == 0 {
				return "", errors.Join(err, oerr)
			}
			return fmt.Sprintf("the runs recorded under thread id %s, which has no messages (resource %s)", thread, strings.Join(owners, ", ")), nil
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("thread %s of resource %s (%s)", t.ID, t.ResourceID, count(t.MessageCount, "message")), nil
	default:
		var threads, total int64
		err := eachThreadPage(ctx, e, resource, func(ts []engine.Thread) error {
			threads += int64(len(ts))
			for _, t := range ts {
				total += t.MessageCount
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("resource %s (%s, %s, and its working memory)", resource, count(threads, "thread"), count(total, "message")), nil
	}
}

// erasedNothing reports whether r removed or changed nothing stored (the
// engine then ran no purge on SQLite).
func erasedNothing(r *engine.EraseResult) bool {
	return len(r.Messages)+len(r.Threads)+len(r.Invalidated)+r.MemCtxScrubbed+r.Runs+r.WorkingMemory+r.WorkingMemoryInvalidated+r.Embeddings == 0
}

// printErase prints an erasure's result; owed says its physical purge did
// not finish (engine.ErrEraseIncomplete), so the last line says it is owed
// instead of "purged in".
func (c *DeleteCommand) printErase(r *engine.EraseResult, owed bool) {
	list := func(ids []string) string {
		if len(ids) == 0 {
			return ""
		}
		if len(ids) > 10 {
			return " (" + strings.Join(ids[:10], ", ") + fmt.Sprintf(", … %d more)", len(ids)-10)
		}
		return " (" + strings.Join(ids, ", ") + ")"
	}
	if erasedNothing(r) {
		if len(r.NotFound) > 0 {
			fmt.Fprintf(c.Stdout, "not found: %d%s\n", len(r.NotFound), list(r.NotFound))
		}
		fmt.Fprintln(c.Stdout, "nothing erased: nothing stored matched (no purge ran)")
		return
	}
	fmt.Fprintf(c.Stdout, "erased %s%s\n", count(len(r.Messages), "message"), list(r.Messages))
	if len(r.Threads) > 0 {
		fmt.Fprintf(c.Stdout, "deleted %s%s\n", count(len(r.Threads), "thread"), list(r.Threads))
	}
	if r.Runs > 0 {
		fmt.Fprintf(c.Stdout, "deleted %s\n", count(r.Runs, "run record"))
	}
	fmt.Fprintf(c.Stdout, "invalidated %s%s\n", count(len(r.Invalidated), "observation"), list(r.Invalidated))
	fmt.Fprintf(c.Stdout, "scrubbed %s; removed %s\n", count(r.MemCtxScrubbed, "memctx record"), count(r.Embeddings, "embedding"))
	fmt.Fprintln(c.Stdout, workingMemoryErased(r))
	if len(r.NotFound) > 0 {
		fmt.Fprintf(c.Stdout, "not found: %d%s\n", len(r.NotFound), list(r.NotFound))
	}
	if owed {
		fmt.Fprintln(c.Stdout, "purge incomplete: the erased data can no longer be read, but its physical purge did not finish; the next delete or open finishes it")
		return
	}
	if c.DB != "" {
		fmt.Fprintf(c.Stdout, "committed in one transaction; the deleted rows stay in the tables' files as dead rows until VACUUM (docs/postgres.md); to vacuum them now, run: %s\n", c.target().mnemo("vacuum"))
		return
	}
	steps := "deleted rows zeroed, index merge, WAL checkpoint"
	if r.IndexesRebuilt {
		steps = "deleted rows zeroed, indexes holding an erased id rebuilt, index merge, WAL checkpoint"
	}
	if why, ok := vacuumWhy[r.Vacuumed]; ok {
		steps += ", file vacuumed: " + why
	}
	fmt.Fprintf(c.Stdout, "purged in %s (%s)\n", r.Purge.Round(time.Millisecond), steps)
}

// workingMemoryErased says what an erasure did to working memory, in the
// words of EraseResult's fields: the versions invalidated
// (WorkingMemoryInvalidated), whose states were rebuilt from the versions
// left, and the states and versions deleted with a thread or a resource
// (WorkingMemory).
func workingMemoryErased(r *engine.EraseResult) string {
	rebuilt := ""
	switch n := r.WorkingMemoryInvalidated; {
	case n == 1:
		rebuilt = ", its state rebuilt without it"
	case n > 1:
		rebuilt = ", their states rebuilt without them"
	}
	deleted := fmt.Sprintf("%d states and versions", r.WorkingMemory)
	if r.WorkingMemory == 1 {
		deleted = "1 state or version"
	}
	return fmt.Sprintf("working memory: invalidated %s%s; deleted %s", count(r.WorkingMemoryInvalidated, "version"), rebuilt, deleted)
}

// vacuumWhy words why an erasure's purge vacuumed the file
// (engine.EraseResult.Vacuumed), for the purge's line.
var vacuumWhy = map[engine.Vacuum]string{
	engine.VacuumResidue:      "it still held the start of an erased text where it could not be zeroed in place (a leftover copy where no page says which bytes are live, or in a damaged file)",
	engine.VacuumTooLarge:     "too many erased texts (over 65,536) to search the file for",
	engine.VacuumTextsUnknown: "an earlier erasure's texts are no longer known",
}
