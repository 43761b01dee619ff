package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/server"
)

// RunsCommand is `mnemo runs`: list runs with a memctx record, newest
// first, a page at a time. Like every command it embeds Main: the process
// environment and the global flags.
type RunsCommand struct{ *Main }

// Run parses the flags of `mnemo runs` from args and runs it. --json
// prints the page as GET /v1/runs answers it (server.RunList: runs, and
// nextCursor when more follow); the text prints a table and, when more
// follow, a last line "more: --cursor C". --cursor is such a cursor (the
// same as the API's); --offset is deprecated (a run recorded between two
// pages shifts it) and refused with --cursor. --thread of a thread that
// does not exist lists the runs recorded on the id (LoadContext on a
// thread not created yet), and with none fails with
// engine.ErrThreadNotFound, as mnemo messages does; --resource of a
// resource without threads lists no runs.
func (c *RunsCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("runs", "")
	thread := fs.String("thread", "", "only this thread's runs")
	resource := fs.String("resource", "", "only this resource's runs")
	limit := fs.Int("limit", 100, fmt.Sprintf("runs per page, 1 to %d", journal.MaxRunsLimit))
	cursor := fs.String("cursor", "", "the next page: the cursor a page printed (more: --cursor, or nextCursor with --json)")
	offset := fs.Int("offset", 0, "deprecated (a run recorded meanwhile shifts the pages): runs to skip; use --cursor")
	asJSON := fs.Bool("json", false, "print JSON: {runs, nextCursor}")
	if err := parse(fs, args); err != nil {
		return err
	}
	f, err := c.runFilter(fs, *thread, *resource, *limit, *cursor, *offset)
	if err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	var missing error
	if *thread != "" {
		// A thread is an entity: one that does not exist and holds no
		// run (a context loaded on the id before any append) is not
		// found, as in mnemo messages (a deleted thread leaves no runs
		// listed). A resource exists by its threads: none lists no runs.
		if _, err := e.GetThread(ctx, *thread); errors.Is(err, engine.ErrThreadNotFound) {
			missing = err
		} else if err != nil {
			return err
		}
	}
	f.Limit++ // one more: is there a next page?
	runs, err := e.Journal().ListRuns(ctx, f)
	if err != nil {
		return err
	}
	if missing != nil && len(runs) == 0 && f.Before == nil && f.Offset == 0 {
		return missing
	}
	if len(runs) == 0 && *resource != "" && f.Before == nil && f.Offset == 0 && !hasThreads(ctx, e, *resource) {
		fmt.Fprintf(c.Stderr, "mnemo runs: note: resource %q has no threads, so it has no runs; check the id: to list the stored resources, run: %s\n", *resource, c.target().threadsCmd(""))
	}
	out := server.RunList{Runs: make([]server.RunInfo, 0, min(len(runs), *limit))}
	for _, ri := range runs[:min(len(runs), *limit)] {
		out.Runs = append(out.Runs, server.RunInfoOf(ri))
	}
	if len(runs) > *limit {
		out.NextCursor = server.RunCursor(runs[*limit-1].Key())
	}
	if *asJSON {
		return c.printJSON(out)
	}
	return printRuns(c.Stdout, out, f.Before == nil && f.Offset == 0)
}

// runFilter checks the flags of `mnemo runs` (usage errors) and returns
// the listing they ask for, Limit runs.
func (c *RunsCommand) runFilter(fs *flag.FlagSet, thread, resource string, limit int, cursor string, offset int) (journal.RunFilter, error) {
	// The CLI is the operator's: --thread lists every resource's runs on
	// the id, as the operator's GET /v1/runs?threadId= does (run56).
	f := journal.RunFilter{ThreadID: thread, ResourceID: resource, EveryResource: thread != "", Limit: limit, Offset: offset}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case fs.NArg() > 0:
		return f, c.noArgs(fs, "")
	case thread != "" && resource != "":
		return f, c.usagef(fs, "give --thread or --resource, not both")
	case limit < 1 || limit > journal.MaxRunsLimit:
		return f, c.valuef(fs, "--limit must be from 1 to %d, got %d", journal.MaxRunsLimit, limit)
	case offset < 0:
		return f, c.valuef(fs, "--offset must be >= 0, got %d", offset)
	case given["cursor"] && given["offset"]:
		return f, c.usagef(fs, "give --cursor or --offset, not both (--offset is deprecated)")
	}
	if err := c.checkIDs(fs, "--thread", thread, "--resource", resource); err != nil {
		return f, err
	}
	if given["cursor"] {
		k, err := server.ParseRunCursor(cursor)
		if err != nil {
			return f, c.valuef(fs, "--cursor %q is not a cursor of mnemo runs: give the one a page printed (more: --cursor, or nextCursor with --json), or none for the first page", cursor)
		}
		f.Before = &k
	}
	return f, nil
}

// noRunsLine is what the text of mnemo runs is when its first page lists
// none, in place of a header alone: what records a run. --json prints
// {"runs": []}.
const noRunsLine = "(no runs: a run is recorded by each context load, with its memctx record: mnemo context, POST /v1/context, the MCP tool memory_context, engine.LoadContext)"

// printRuns prints a page of runs as a table and, when more follow, the
// cursor of the next page; a page of none says so (noRunsLine; "(no more
// runs)" past the first page).
func printRuns(w io.Writer, page server.RunList, first bool) error {
	switch {
	case len(page.Runs) == 0 && first:
		_, err := fmt.Fprintln(w, noRunsLine)
		return err
	case len(page.Runs) == 0:
		_, err := fmt.Fprintln(w, "(no more runs)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tTHREAD\tRESOURCE\tCREATED")
	for _, r := range page.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.RunID, r.ThreadID, r.ResourceID, r.CreatedAt.UTC().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if page.NextCursor != "" {
		_, err := fmt.Fprintf(w, "more: --cursor %s\n", page.NextCursor)
		return err
	}
	return nil
}
