package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/mnemo-go/mnemo/internal/importer"
)

// progressMinBytes is the file size from which ingest shows a progress bar
// (on a terminal only).
const progressMinBytes = 4 << 20

func (m *Main) runIngest(ctx context.Context, args []string) error {
	fs := m.flags("ingest", "FILE...")
	format := fs.String("format", "auto", "auto, jsonl, locomo or longmemeval")
	strict := fs.Bool("strict", false, "stop at the first malformed record instead of skipping it")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return m.usagef(fs, "ingest needs at least one FILE")
	}
	switch *format {
	case "auto", importer.FormatJSONL, importer.FormatLoCoMo, importer.FormatLongMemEval:
	default:
		return m.usagef(fs, "unknown --format %q", *format)
	}
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	var total importer.Report
	var failed error
	for _, path := range fs.Args() {
		opt := importer.Options{Format: *format, Strict: *strict}
		var bar *progressbar.ProgressBar
		if fi, err := os.Stat(path); err == nil && fi.Size() >= progressMinBytes && isTerminal(m.Stderr) {
			bar = progressbar.DefaultBytes(fi.Size(), "ingest "+path)
			opt.Progress = func(read, _ int64) { _ = bar.Set64(read) }
		}
		rep, err := importer.Import(ctx, e, path, opt)
		if bar != nil {
			_ = bar.Finish()
		}
		if rep != nil {
			for _, p := range rep.Problems {
				fmt.Fprintf(m.Stderr, "skipped: %v\n", p)
			}
			if !*asJSON {
				fmt.Fprintf(m.Stdout, "%s (%s): %d resources, %d threads, %d messages stored, %d already stored, %d skipped\n",
					path, rep.Format, rep.Resources, rep.Threads, rep.Messages, rep.Duplicates, rep.Skipped)
			}
			total.Resources += rep.Resources
			total.Threads += rep.Threads
			total.Messages += rep.Messages
			total.Duplicates += rep.Duplicates
			total.Skipped += rep.Skipped
		}
		if err != nil {
			failed = fmt.Errorf("%s: %w", path, err)
			break
		}
	}
	if failed == nil {
		// Leave both indexes caught up, so the next command recalls what was
		// just ingested.
		if err := e.SyncIndexes(ctx); err != nil {
			failed = fmt.Errorf("index the ingested messages: %w", err)
		}
	}
	if *asJSON {
		if err := json.NewEncoder(m.Stdout).Encode(total); err != nil {
			return err
		}
	} else if fs.NArg() > 1 {
		fmt.Fprintf(m.Stdout, "total: %d resources, %d threads, %d messages stored, %d already stored, %d skipped\n",
			total.Resources, total.Threads, total.Messages, total.Duplicates, total.Skipped)
	}
	return failed
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
