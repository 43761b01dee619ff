package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
)

func init() {
	commands["export"] = command{"write threads and messages as JSONL that mnemo ingest reads back, to move them between SQLite and Postgres", func(m *Main) Command { return &ExportCommand{m} }}
}

// ExportCommand is `mnemo export [--resource R | --thread T] [FILE|-]`
// (importer.Export): the stored threads and messages as mnemo's JSONL
// format, which `mnemo ingest` reads back under the same ids. Like every
// command it embeds Main: the process environment and the global flags.
type ExportCommand struct{ *Main }

// exportJSON is what `mnemo export --json` prints: the file and the counts.
type exportJSON struct {
	File string `json:"file"`
	*importer.ExportReport
}

// Run parses the flags of `mnemo export` from args and runs it.
func (c *ExportCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("export", "[FILE | -] (- or none: standard output)")
	resource := fs.String("resource", "", "only this resource's threads")
	thread := fs.String("thread", "", "only this thread")
	asJSON := fs.Bool("json", false, "print what was written as JSON (needs a FILE)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.checkIDs(fs, "--resource", *resource, "--thread", *thread); err != nil {
		return err
	}
	file := "-"
	switch {
	case fs.NArg() > 1:
		return c.usagef(fs, "export takes one FILE, got %q", fs.Args())
	case fs.NArg() == 1 && fs.Arg(0) == "":
		return c.valuef(fs, "FILE is empty: give a file name, or - for standard output")
	case fs.NArg() == 1:
		file = fs.Arg(0)
	}
	if *asJSON && file == "-" {
		return c.usagef(fs, "--json prints on standard output, where the export goes without a FILE: give a FILE")
	}
	if err := checkExportFile(file); err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil && ctx.Err() != nil {
		return &interruptedError{fmt.Sprintf("nothing was written to %s (the data directory was opening); run the export again", exportDest(file)), err}
	} else if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	opt := importer.ExportOptions{Resource: *resource, Thread: *thread, PageSize: listPage, OnNUL: func(r importer.NULReplaced) {
		// A NUL an older build stored: neither store accepts it now, so
		// the line would not move (importer's exportnul.go).
		fmt.Fprintf(c.Stderr, "mnemo export: %s, which no store accepts now: written as U+FFFD\n", termSafeText(r.String()))
	}, OnMalformed: func(w importer.MalformedWritten) {
		// A row written outside mnemo (importer's exportmalformed.go).
		fmt.Fprintf(c.Stderr, "mnemo export: %s\n", termSafeText(w.String()))
	}}
	if file == "-" {
		rep, err := importer.Export(ctx, e, c.Stdout, opt)
		if err != nil {
			left := "what was written is incomplete"
			if refusedChoice(err) {
				left = "nothing was written" // it said "incomplete" of no line
			}
			return exportFailed(ctx, "standard output", rep, err, left)
		}
		fmt.Fprintf(c.Stderr, "exported %s\n", exportSummary(rep))
		return nil
	}
	rep, err := exportFile(ctx, file, func(w io.Writer) (*importer.ExportReport, error) { return importer.Export(ctx, e, w, opt) })
	if err != nil {
		return exportFailed(ctx, file, rep, err, "nothing was written to "+file)
	}
	if *asJSON {
		return c.printJSON(exportJSON{file, rep})
	}
	fmt.Fprintf(c.Stdout, "exported %s to %s\n", exportSummary(rep), file)
	return nil
}

// checkExportFile fails when file (not "-") cannot be made: it exists
// (export overwrites none), or its directory does not exist or is not a
// directory. Said before the store is opened, naming what the user gave,
// not the temporary file exportFile would have made.
func checkExportFile(file string) error {
	if file == "-" {
		return nil
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("%s exists: export writes a new file and overwrites none; remove it or name another", file)
	}
	dir := filepath.Dir(file)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("directory %s does not exist: nothing was written to %s; create it or name another FILE", dir, file)
	case err != nil:
		return fmt.Errorf("directory of %s: %w (nothing was written)", file, err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: nothing was written to %s", dir, file)
	}
	return nil
}

// exportDest is how an export's destination is named: FILE, or
// "standard output" for "-".
func exportDest(file string) string {
	if file == "-" {
		return "standard output"
	}
	return file
}

// exportSummary is the counts of rep in words: "2 resources, 3 threads,
// 120 messages" and, when there are some, ", 2 working-memory states",
// ", 1 dispatch", "; 3 stored values with NUL characters written with
// U+FFFD in their place (named above)", "; 1 malformed stored value (written
// outside mnemo) written as text (named above)".
func exportSummary(rep *importer.ExportReport) string {
	s := fmt.Sprintf("%s, %s, %s", count(rep.Resources, "resource"), count(rep.Threads, "thread"), count(rep.Messages, "message"))
	if rep.WorkingMemory > 0 {
		s += ", " + count(rep.WorkingMemory, "working-memory state")
	}
	if rep.Dispatches > 0 {
		s += ", " + count(rep.Dispatches, "dispatch")
	}
	if rep.NULReplaced > 0 {
		s += "; " + count(rep.NULReplaced, "stored value") + " with NUL characters written with U+FFFD in their place (named above)"
	}
	if rep.Malformed > 0 {
		s += "; " + count(rep.Malformed, "malformed stored value") + " (written outside mnemo) written as text (named above)"
	}
	return s
}

// refusedChoice reports whether err is Export's refusal of what
// --resource or --thread chose (a thread or resource not found, a thread
// of another resource), which it returns before writing a line.
func refusedChoice(err error) bool {
	return errors.Is(err, importer.ErrResourceNotFound) || errors.Is(err, engine.ErrThreadNotFound) || errors.Is(err, engine.ErrResourceMismatch)
}

// exportFailed is the error of an export to dest stopped by err after
// rep's lines were written; left says what became of them. When no line
// was written it says so plainly, "nothing was written [to FILE]", where
// it said "(stopped after 0 messages: nothing was written)".
func exportFailed(ctx context.Context, dest string, rep *importer.ExportReport, err error, left string) error {
	n, states := 0, 0
	if rep != nil {
		n, states = rep.Messages, rep.WorkingMemory
	}
	if n+states == 0 {
		left = "nothing was written"
		if dest != "standard output" {
			left += " to " + dest
		}
		if ctx.Err() != nil {
			return &interruptedError{left + "; run the export again", err}
		}
		return fmt.Errorf("%w (%s)", err, left)
	}
	if ctx.Err() != nil {
		return &interruptedError{fmt.Sprintf("stopped after %s of %s: %s; run the export again", count(n, "message"), dest, left), err}
	}
	return fmt.Errorf("%w (stopped after %s: %s)", err, count(n, "message"), left)
}

// exportFile runs write on a new temporary file beside file and, when it
// succeeds, links it to file, which must not exist then: an export cut
// short (an error, an interrupt) leaves no file, and none is overwritten.
// FILE is made mode 0600 (os.CreateTemp's), whatever the umask: it holds
// memory data, read by its owner only (docs/cli.md says so).
func exportFile(ctx context.Context, file string, write func(io.Writer) (*importer.ExportReport, error)) (*importer.ExportReport, error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".export-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	rep, err := write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return rep, err
	}
	if err := os.Link(tmp.Name(), file); errors.Is(err, os.ErrExist) {
		return rep, fmt.Errorf("%s was created meanwhile: export overwrites no file; remove it or name another", file)
	} else if err != nil {
		return rep, err
	}
	return rep, nil
}
