package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/filekind"
)

// progressMinBytes is the file size from which ingest shows a progress bar
// (on a terminal only).
const progressMinBytes = 4 << 20

// formatNames lists the formats ingest and bench --file read, as
// knownFormat accepts them.
const formatNames = importer.FormatAuto + ", " + importer.FormatJSONL + ", " + importer.FormatLoCoMo + " or " + importer.FormatLongMemEval

// knownFormat reports whether format is one of formatNames.
func knownFormat(format string) bool {
	switch format {
	case importer.FormatAuto, importer.FormatJSONL, importer.FormatLoCoMo, importer.FormatLongMemEval:
		return true
	}
	return false
}

// IngestCommand is `mnemo ingest`: import conversations (jsonl, locomo,
// longmemeval). Like every command it embeds Main: the process environment
// and the global flags.
type IngestCommand struct {
	*Main
	committed committed // the messages stored so far (ingest_committed.go)
}

// Run parses the flags of `mnemo ingest` from args and runs it, in stages:
// the arguments checked (parseArgs), the data directory found free
// (checkFree), each FILE opened, FIFOs and standard input copied and their
// formats detected (readInputs) — all before anything is stored — then the
// memory opened and each FILE imported (importAll), the indexes caught up
// (finish) and the total printed (printTotal).
func (c *IngestCommand) Run(ctx context.Context, args []string) error {
	a, err := c.parseArgs(args)
	if err != nil {
		return err
	}
	if err := c.checkFree(ctx); err != nil {
		return err
	}
	in := &ingestInputs{}
	defer in.cleanup()
	if err := c.readInputs(ctx, a, in); err != nil {
		return err
	}
	made := c.missingDataDirs()
	e, watch, err := c.openSyncing(ctx, c.target())
	if err != nil && ctx.Err() != nil {
		return &interruptedError{"nothing was stored (the data directory was opening); run the same ingest again", err}
	} else if err != nil {
		return err
	}
	defer watch.Stop()
	c.committed.check = c.target().mnemo("check")
	c.setLastLine(c.committed.line)
	r := &ingestRun{e: e, watch: watch}
	defer func() {
		// Refused (a malformed record with --strict, no record imported,
		// a file not of the --format given) or given nothing to read (an
		// empty FILE or standard input of --format jsonl): the data
		// directory this command created holds nothing; no trace once it
		// is closed. A working-memory state set holds something, which
		// Stats does not count (a resource's needs no thread).
		untouched := ctx.Err() == nil && len(made) > 0 && storesNothing(ctx, e) && r.total.WorkingMemory == 0
		e.CloseContext(ctx)
		if untouched {
			removeCreated(made)
		}
	}()
	if err := c.indexBefore(ctx, e, watch); err != nil {
		return err
	}
	failed, err := c.importAll(ctx, a, in, r)
	if err != nil {
		return err
	}
	failed = c.finish(ctx, r, failed)
	if err := c.printTotal(a, r); err != nil {
		return err
	}
	return failed
}

// ingestArgs is what `mnemo ingest` was asked, its flags checked.
type ingestArgs struct {
	files    []string // the FILEs, at least one; "-" is standard input, at most once
	format   string   // --format: one of formatNames
	strict   bool     // --strict
	asJSON   bool     // --json
	maxSpool int64    // --max-spool, in bytes
}

// parseArgs parses the flags of `mnemo ingest` from args and checks them:
// a usage error when no FILE is named, a value error naming the flag or
// the FILE for a --max-spool or --format mnemo does not read and for a
// FILE that can be read only once named twice.
func (c *IngestCommand) parseArgs(args []string) (ingestArgs, error) {
	fs := c.flags("ingest", "FILE... (- reads standard input, named once)")
	format := fs.String("format", "auto", formatNames)
	strict := fs.Bool("strict", false, "stop at the first malformed record (exit 1) instead of skipping it (exit 3 once the rest is stored)")
	asJSON := fs.Bool("json", false, "print the summary as JSON (several FILEs: their counts summed, as the total line)")
	maxSpoolFlag := fs.String("max-spool", flagByteSize(DefaultMaxSpool), "the most copied of standard input, a pipe or a device (`SIZE`: 512MiB, 4GiB, in bytes without a unit) to $TMPDIR before it is imported; a regular FILE is read in place")
	if err := parse(fs, args); err != nil {
		return ingestArgs{}, err
	}
	maxSpool, err := parseByteSize(*maxSpoolFlag)
	if err != nil {
		return ingestArgs{}, c.valuef(fs, "--max-spool: %v", err)
	}
	if fs.NArg() == 0 {
		return ingestArgs{}, c.usagef(fs, "ingest needs at least one FILE")
	}
	if n := occurrences(fs.Args(), "-"); n > 1 {
		// A second read of standard input finds it at its end: an empty
		// FILE, reported as one of no format.
		return ingestArgs{}, c.valuef(fs, "- (standard input) is named %d times: it can be read once, so name it once", n)
	}
	if a, b, kind := c.readOnceTwice(fs.Args()); a == b && a != "" {
		return ingestArgs{}, c.valuef(fs, "the %s %s is named twice: it can be read once, so name it once", kind, inputName(a))
	} else if a != "" {
		return ingestArgs{}, c.valuef(fs, "%s and %s are the same %s: it can be read once, so name it once", inputName(a), inputName(b), kind)
	}
	if !knownFormat(*format) {
		return ingestArgs{}, c.valuef(fs, "unknown --format %q (want %s)", *format, formatNames)
	}
	return ingestArgs{files: fs.Args(), format: *format, strict: *strict, asJSON: *asJSON, maxSpool: maxSpool}, nil
}

// ingestInputs is what readInputs made of the FILEs: the copies of the
// ones that can be read only once, removed by cleanup.
type ingestInputs struct {
	spooled   map[string]string // a FIFO's or device's path → its copy (checkInputs)
	stdinCopy string            // the copy of standard input when it is the first FILE, else ""
	removes   []func()          // cleanup's, in the order they were made
}

// cleanup removes the copies, the last made first.
func (in *ingestInputs) cleanup() {
	for i := len(in.removes) - 1; i >= 0; i-- {
		in.removes[i]()
	}
}

// readInputs checks every FILE before anything is stored or the data
// directory created (checkInputs), copies standard input when it is the
// first FILE, and with --format auto detects each format (checkFormats).
// Standard input named after a FILE is copied when its turn comes
// (importAll). in's copies are kept whatever the error: the caller
// removes them (cleanup).
func (c *IngestCommand) readInputs(ctx context.Context, a ingestArgs, in *ingestInputs) error {
	spooled, cleanup, err := checkInputs(ctx, a.files, a.maxSpool)
	in.spooled, in.removes = spooled, append(in.removes, cleanup)
	if err == nil && a.files[0] == "-" {
		// Nothing is stored before it: copied now, standard input that
		// passes --max-spool, or of no format mnemo reads, fails as a
		// FIFO does, before the data directory is created.
		var rm func()
		in.stdinCopy, rm, err = c.spoolStdin(ctx, a.maxSpool)
		if rm != nil {
			in.removes = append(in.removes, rm)
		}
		if ctx.Err() != nil { // a read that ended at EOF after the signal too
			return &interruptedError{"nothing was stored (standard input was being read); run the same ingest again", ctx.Err()}
		}
	}
	if err == nil && a.format == "auto" {
		err = checkFormats(a.files, spooled, in.stdinCopy)
	}
	return err
}

// ingestRun is one ingest's open memory and what its imports added up to.
type ingestRun struct {
	e        *engine.Engine
	watch    *outboxWatch
	total    importer.Report // every FILE's counts summed (addReport)
	erased   erasedByRun     // what the engine erased meanwhile, of every FILE
	reported bool            // a file's import began: --json prints the report
}

// importAll imports each FILE in turn into r, until one fails: failed is
// that failure as the user reads it (ingestFailed), nil when every FILE
// was imported. err is a failure to copy standard input named after a
// FILE: the ingest ends there, neither indexing nor printing a total.
func (c *IngestCommand) importAll(ctx context.Context, a ingestArgs, in *ingestInputs, r *ingestRun) (failed, err error) {
	for _, path := range a.files {
		label := path
		if path == "-" && in.stdinCopy != "" {
			label, path = "stdin", in.stdinCopy
		} else if path == "-" {
			label = "stdin"
			spooled, cleanup, err := c.spoolStdin(ctx, a.maxSpool)
			if err != nil && ctx.Err() != nil {
				return interrupted(label, err, nil), nil
			} else if err != nil {
				return nil, err
			}
			in.removes = append(in.removes, cleanup)
			path = spooled
		}
		opt := importer.Options{Format: a.format, Strict: a.strict, Name: label}
		if p, ok := in.spooled[path]; ok {
			path, opt.Format = p, spoolFormat(a.format, path)
		}
		rep, gone, err := c.importFile(ctx, r.e, r.watch, path, opt, a.asJSON)
		r.erased.plus(gone)
		if rep != nil {
			r.reported = true
			addReport(&r.total, rep, label, len(a.files))
		}
		if err != nil {
			return c.ingestFailed(ctx, label, err, a.strict, rep), nil
		}
	}
	return nil, nil
}

// addReport adds rep, the report of the FILE label (one of files), to
// total: its counts, and for a single FILE its file, format and where it
// stopped; where the engine stopped it, its error, prefixed with label
// when there are several FILEs.
func addReport(total, rep *importer.Report, label string, files int) {
	total.Resources += rep.Resources
	total.Threads += rep.Threads
	total.Messages += rep.Messages
	total.Duplicates += rep.Duplicates
	total.Skipped += rep.Skipped
	total.WorkingMemory += rep.WorkingMemory
	total.WorkingMemorySame += rep.WorkingMemorySame
	total.Dispatches += rep.Dispatches
	total.DispatchesSame += rep.DispatchesSame
	total.Unpaired += rep.Unpaired
	total.UnpairedUnchecked += rep.UnpairedUnchecked
	total.UnpairedEarlier += rep.UnpairedEarlier
	addUnstored(total, rep)
	if files == 1 {
		total.File, total.Format, total.Stopped = rep.File, rep.Format, rep.Stopped
	}
	if rep.Error != "" {
		// Where the engine stopped it; of several FILEs the last
		// read (the others are not read), its error naming it.
		total.Stopped, total.StoppedThread, total.NotStored, total.Error = rep.Stopped, rep.StoppedThread, rep.NotStored, rep.Error
		if files > 1 {
			total.Error = label + ": " + rep.Error
		}
	}
}

// finish leaves both indexes caught up unless the ingest was interrupted,
// so that the next command recalls what was just ingested, and returns
// the ingest's error: failed (importAll's), else a failure to index, else
// a *skippedError when records were skipped; an interrupted ingest's says
// what the indexes still owe (unindexed).
func (c *IngestCommand) finish(ctx context.Context, r *ingestRun, failed error) error {
	if ctx.Err() == nil {
		if failed == nil {
			c.setLastLine(c.committed.indexing)
		}
		err := c.syncWithProgress(ctx, r.e)
		r.watch.Stop()
		switch {
		case err == nil || failed != nil:
		case ctx.Err() != nil:
			failed = &interruptedError{"every message is stored; the indexing stopped", err}
		default:
			failed = fmt.Errorf("index the ingested messages: %w", err)
		}
	}
	if failed == nil && r.total.Skipped > 0 {
		// Stored but for the records named "skipped:": not exit 0 (ingest_skipped.go).
		failed = &skippedError{r.total.Skipped}
	}
	if ie := (*interruptedError)(nil); ctx.Err() != nil && errors.As(failed, &ie) {
		ie.msg += c.unindexed(ctx, r.e)
	}
	return failed
}

// printTotal prints, with --json, the report of r once a file's import
// began, or, of several FILEs, the "total:" line.
func (c *IngestCommand) printTotal(a ingestArgs, r *ingestRun) error {
	if a.asJSON && r.reported {
		// One file: its report (file, format and counts); several: the
		// counts summed, with no file or format (resources and threads
		// too: a thread in two FILEs counts twice, as in "total:"). None
		// when no import began (a file vanished after checkInputs):
		// stdout stays empty.
		enc := json.NewEncoder(c.Stdout)
		enc.SetEscapeHTML(false) // the file's name as given: "a&b.jsonl", not "a\u0026b.jsonl"
		return enc.Encode(ingestJSON{r.total, r.erased})
	}
	if !a.asJSON && len(a.files) > 1 {
		fmt.Fprintf(c.Stdout, "total: %s%s\n", summary(&r.total), r.erased.clause())
	}
	return nil
}

// checkFree fails when another process holds the data directory (mnemo
// serve, or any command's open engine: engine.CheckLock, waiting as open
// does), before any FILE or standard input is read: a producer's output
// (`producer | mnemo ingest -`), copied whole before, then refused as "in
// use", is left unread. A process that takes the directory while the
// input is copied still makes open refuse it after the copy.
func (c *IngestCommand) checkFree(ctx context.Context) error {
	dir := c.target().dir
	if dir == "" {
		return nil // Postgres: any number of processes write one database
	}
	if err := checkNotServed(dir); err != nil {
		return err
	}
	return engine.CheckLock(ctx, engine.Config{Dir: dir})
}

// missingDataDirs lists the data directory and its ancestors that do not
// exist yet, deepest first (missingDirs): the ones open creates. None on
// Postgres.
func (c *IngestCommand) missingDataDirs() []string {
	if dir := c.target().dir; dir != "" {
		return missingDirs(dir)
	}
	return nil
}

// storesNothing reports whether e holds no message and no thread.
func storesNothing(ctx context.Context, e *engine.Engine) bool {
	st, err := e.Stats(ctx)
	return err == nil && st.Messages == 0 && st.Threads == 0
}

// occurrences returns how many of ss are s.
func occurrences(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// readOnceTwice returns two FILEs, a and b, that are the same file that
// can be read only once (standard input, a pipe or FIFO, a device: kind
// says which, filekind.Of), whatever their names ("- /dev/stdin", "/dev/fd/0
// /proc/self/fd/0", a FIFO named twice; os.SameFile), or "" when there
// are none: the second read would find it at its end, an empty FILE. A
// regular file named twice is not reported: it is imported twice, the
// second time storing nothing, as every message is stored by id (docs/cli.md).
// A FILE that cannot be stat'ed is left to checkInputs to report; "-" is
// compared when standard input is a file.
func (c *IngestCommand) readOnceTwice(paths []string) (a, b, kind string) {
	type input struct {
		path string
		fi   os.FileInfo
	}
	var seen []input
	for _, path := range paths {
		fi, err := c.statInput(path)
		if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
			continue
		}
		for _, s := range seen {
			if os.SameFile(s.fi, fi) {
				return s.path, path, filekind.Of(fi.Mode())
			}
		}
		seen = append(seen, input{path, fi})
	}
	return "", "", ""
}

// statInput returns the FileInfo of the FILE path, of standard input for
// "-" (an error when it is not a file).
func (c *IngestCommand) statInput(path string) (os.FileInfo, error) {
	if path != "-" {
		return os.Stat(path)
	}
	f, ok := c.Stdin.(*os.File)
	if !ok {
		return nil, errors.New("standard input is not a file")
	}
	return f.Stat()
}

// inputName is how a FILE is named in a message: "- (standard input)"
// for "-", else its path.
func inputName(path string) string {
	if path == "-" {
		return "- (standard input)"
	}
	return path
}

// checkInputs opens each FILE argument ("-" aside) before anything is
// stored, so that a missing or unreadable one (or a directory) fails
// ingest with nothing stored, no data directory created and, with --json,
// nothing on standard output: "FILE: no such file or directory". A FILE
// that is not a regular file (a FIFO, `<(cmd)`) can be read only once:
// it is kept open and, once every FILE passed, copied to a private
// temporary file, as standard input is (closing it would end the
// producer's pipe, and reopening it wait for another), at most maxBytes
// of each (spool). spooled maps such a FILE to its copy; cleanup removes
// the copies (call it in any case).
func checkInputs(ctx context.Context, paths []string, maxBytes int64) (spooled map[string]string, cleanup func(), err error) {
	spooled, cleanup = map[string]string{}, func() {}
	var pipes []*os.File
	defer func() {
		for _, f := range pipes {
			f.Close()
		}
	}()
	for _, path := range paths {
		if path == "-" {
			continue
		}
		f, err := openInput(path)
		if err != nil {
			return spooled, cleanup, fmt.Errorf("%s: %w (nothing was stored)", path, err)
		}
		if f != nil {
			pipes = append(pipes, f)
		}
	}
	var copies []func()
	cleanup = func() {
		for _, rm := range copies {
			rm()
		}
	}
	for _, f := range pipes { // each a different file (readOnceTwice)
		tmp, rm, err := spool(ctx, f, filepath.Ext(f.Name()), maxBytes)
		if err != nil {
			return spooled, cleanup, fmt.Errorf("%s: %w (nothing was stored)", f.Name(), err)
		}
		spooled[f.Name()], copies = tmp, append(copies, rm)
	}
	return spooled, cleanup, nil
}

// checkFormats detects the format of each FILE (of the copy checkInputs
// made of a FIFO, named as the FIFO; of stdinCopy, the copy of standard
// input given first, "" when it is not), so that with --format auto a
// FILE of no format mnemo reads fails ingest before anything is stored or
// a data directory created, as an unreadable one does: "FILE: unknown
// format: FILE is neither JSONL nor a JSON array (nothing was stored)".
// Standard input after a FILE is copied and detected in its turn.
// Before, a FIFO (`<(cmd)`) or standard input of no format created the
// data directory and then failed.
func checkFormats(paths []string, spooled map[string]string, stdinCopy string) error {
	for _, path := range paths {
		name, read := path, path
		switch cp, ok := spooled[path]; {
		case path == "-" && stdinCopy == "":
			continue
		case path == "-":
			name, read = "stdin", stdinCopy
		case ok && spoolFormat("auto", path) != "auto":
			continue // named .jsonl: read as JSONL
		case ok:
			read = cp
		}
		if _, err := importer.DetectAs(read, name); err != nil {
			return fmt.Errorf("%s: %s (nothing was stored)", name, strings.TrimPrefix(err.Error(), "importer: "))
		}
	}
	return nil
}

// openInput checks that path can be read: it opens it and returns nil
// for a regular file (closed: the import opens it again), the open file
// for anything else but a directory (a FIFO or a pipe, which must not be
// closed before it is read), or the error, without the path.
func openInput(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err == nil && fi.IsDir():
		err = errors.New("is a directory, not a file")
	case err == nil && !fi.Mode().IsRegular():
		return f, nil
	}
	f.Close()
	return nil, err
}

// importFile imports path (opt.Name is how it is shown), with a progress
// bar on a terminal for a large file, and prints the skipped records and,
// unless asJSON, the file's summary line, ended by what the engine
// evicted or expired meanwhile (w.TakeErased, returned too).
func (c *IngestCommand) importFile(ctx context.Context, e *engine.Engine, w *outboxWatch, path string, opt importer.Options, asJSON bool) (*importer.Report, erasedByRun, error) {
	label := opt.Name
	var bar *progressbar.ProgressBar
	if fi, err := os.Stat(path); err == nil && fi.Size() >= progressMinBytes && isTerminal(c.Stderr) {
		bar, opt.Progress = c.fileBar(fi.Size(), "storing "+termSafeText(label)) // barline.go
	}
	rep, err := importer.Import(ctx, countingAppender{e, &c.committed}, path, opt)
	if bar != nil {
		c.endBar(bar, err) // the lines below begin their own
	}
	erased := w.TakeErased()
	if rep != nil {
		for _, p := range rep.Problems {
			fmt.Fprintf(c.Stderr, "skipped: %s: %s\n", p.Record(), p.Reason())
		}
		c.printUnpaired(label, rep)
		rep.File = label
		if !asJSON {
			stopped := ""
			switch {
			case rep.Error != "":
				// The engine stopped it (a quota, the database gone): said
				// with the error by ingestFailed.
				stopped = ", stopped at " + rep.Stopped
			case rep.Stopped != "":
				// --strict: the record that stopped the import is the error, not skipped.
				stopped = ", stopped at " + rep.Stopped + " (--strict)"
			}
			fmt.Fprintf(c.Stdout, "%s (%s): %s%s%s\n", label, rep.Format, summary(rep), stopped, erased.clause())
		}
	}
	return rep, erased, err
}

// ingestJSON is mnemo ingest --json's report: the import's counts and
// what the engine erased on its own account meanwhile (erasedByRun).
type ingestJSON struct {
	importer.Report
	erasedByRun
}

// indexBefore indexes the outbox rows queued before this ingest
// (indexQueued: a backlog a stopped process left, said first), so that
// the ingest's own sync at its end is not a long wait it did not cause.
// Nothing is stored yet.
func (c *IngestCommand) indexBefore(ctx context.Context, e *engine.Engine, w *outboxWatch) error {
	err := c.indexQueued(ctx, e, w)
	w.Settle() // its wait line, if any, before the import's lines
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &interruptedError{"nothing was stored (what an earlier command stored was being indexed); run the same ingest again", err}
	}
	return fmt.Errorf("index the outbox rows queued before this ingest: %w", err)
}

// syncWithProgress waits for the indexes to catch up with what was stored
// (lexical and vectors: with use-lite the embedding is the slow part),
// with outboxProgress's bar on a terminal or its lines elsewhere.
func (c *IngestCommand) syncWithProgress(ctx context.Context, e *engine.Engine) error {
	st, err := e.Stats(ctx)
	if err != nil {
		return e.SyncIndexes(ctx)
	}
	return c.outboxProgress(ctx, e, st.OutboxPending, "indexing (lexical, vectors)", func() error { return e.SyncIndexes(ctx) })
}

func isTerminal(w any) bool {
	if t, ok := w.(termSafe); ok {
		w = t.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
