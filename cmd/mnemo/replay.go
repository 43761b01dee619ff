package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
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
// pages shifts it) and refused with --cursor.
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
	f.Limit++ // one more: is there a next page?
	runs, err := e.Journal().ListRuns(ctx, f)
	if err != nil {
		return err
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
	return printRuns(c.Stdout, out)
}

// runFilter checks the flags of `mnemo runs` (usage errors) and returns
// the listing they ask for, Limit runs.
func (c *RunsCommand) runFilter(fs *flag.FlagSet, thread, resource string, limit int, cursor string, offset int) (journal.RunFilter, error) {
	f := journal.RunFilter{ThreadID: thread, ResourceID: resource, Limit: limit, Offset: offset}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case fs.NArg() > 0:
		return f, c.usagef(fs, "runs takes no arguments")
	case thread != "" && resource != "":
		return f, c.usagef(fs, "give --thread or --resource, not both")
	case limit < 1 || limit > journal.MaxRunsLimit:
		return f, c.usagef(fs, "--limit must be from 1 to %d, got %d", journal.MaxRunsLimit, limit)
	case offset < 0:
		return f, c.usagef(fs, "--offset must be >= 0, got %d", offset)
	case given["cursor"] && given["offset"]:
		return f, c.usagef(fs, "give --cursor or --offset, not both (--offset is deprecated)")
	}
	if err := c.checkIDs(fs, "--thread", thread, "--resource", resource); err != nil {
		return f, err
	}
	if given["cursor"] {
		k, err := server.ParseRunCursor(cursor)
		if err != nil {
			return f, c.usagef(fs, "--cursor %q is not a cursor of mnemo runs: give the one a page printed (more: --cursor, or nextCursor with --json), or none for the first page", cursor)
		}
		f.Before = &k
	}
	return f, nil
}

// printRuns prints a page of runs as a table and, when more follow, the
// cursor of the next page.
func printRuns(w io.Writer, page server.RunList) error {
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

// ReplayCommand is `mnemo replay`: rebuild a run's prompt, optionally without
// recall, observations, working memory or chosen turns. Like every command it
// embeds Main: the process environment and the global flags.
type ReplayCommand struct{ *Main }

// Run parses the flags of `mnemo replay` from args and runs it.
func (c *ReplayCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("replay", "RUN_ID")
	without := fs.String("without", "", "what to leave out: recalled, observations, working-memory, or THREAD:SEQ,... (comma-separated, may be mixed)")
	asJSON := fs.Bool("json", false, "print the original and counterfactual contexts as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef(fs, "replay needs one RUN_ID")
	}
	if err := c.checkIDs(fs, "RUN_ID", fs.Arg(0)); err != nil {
		return err
	}
	if err := c.checkGiven(fs, "--without", "what to leave out"); err != nil {
		return err
	}
	opt, err := parseWithout(*without)
	if err != nil {
		return c.usagef(fs, "%v", err)
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)
	r, err := e.Replay(ctx, fs.Arg(0), opt)
	if err != nil {
		return err
	}
	if *asJSON {
		return c.printJSON(server.ReplayOf(r))
	}
	printReplay(c.Stdout, r, *without != "")
	return nil
}

// parseWithout reads --without: keywords and THREAD:SEQ pairs (the seq is
// after the last colon, since thread ids may hold colons).
func parseWithout(s string) (engine.ReplayOptions, error) {
	var opt engine.ReplayOptions
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "":
		case "recalled", "recall":
			opt.WithoutRecalled = true
		case "observations":
			opt.WithoutObservations = true
		case "working-memory":
			opt.WithoutWorkingMemory = true
		default:
			i := strings.LastIndexByte(part, ':')
			if i <= 0 {
				return opt, fmt.Errorf("--without: %q is not recalled, observations, working-memory or THREAD:SEQ", part)
			}
			seq, err := strconv.ParseInt(part[i+1:], 10, 64)
			if err != nil || seq < 1 {
				return opt, fmt.Errorf("--without: %q: the seq after the last colon must be a whole number >= 1", part)
			}
			opt.WithoutTurns = append(opt.WithoutTurns, engine.TurnRef{ThreadID: part[:i], Seq: seq})
		}
	}
	return opt, nil
}

// printReplay shows the original prompt, the counterfactual one and what
// was removed.
func printReplay(w io.Writer, r *engine.Replay, asked bool) {
	fmt.Fprintf(w, "run %s: replay reproduced the recorded prompt (%s)\n\n", r.RunID, r.Original.PromptHash)
	fmt.Fprintf(w, "══ original prompt ══\n")
	printPrompt(w, r.Original)
	if len(r.Removed) == 0 && len(r.RemovedObservations) == 0 && !r.RemovedWorkingMemory {
		if asked {
			fmt.Fprintf(w, "\n(the removals asked match nothing in this run: the counterfactual prompt is the original)\n")
		} else {
			fmt.Fprintf(w, "\n(no removals asked: the counterfactual prompt is the original)\n")
		}
		return
	}
	fmt.Fprintf(w, "\n══ counterfactual prompt (%s) ══\n", r.Counterfactual.PromptHash)
	printPrompt(w, r.Counterfactual)
	fmt.Fprintf(w, "\n══ removed ══\n")
	for _, x := range r.Removed {
		reason := x.Reason
		if reason == "" {
			reason = "recent"
		}
		fmt.Fprintf(w, "  %-6s %s #%d %s  %s\n", reason, x.ThreadID, x.Seq, x.Role, x.Preview)
	}
	for _, o := range r.RemovedObservations {
		fmt.Fprintf(w, "  observation %s (%s #%d–%d)\n", o.ID, o.ThreadID, o.FromSeq, o.ToSeq)
	}
	if r.RemovedWorkingMemory {
		fmt.Fprintf(w, "  working memory\n")
	}
}

func printPrompt(w io.Writer, c *engine.Context) {
	if c.System != "" {
		fmt.Fprintf(w, "[system] %s\n", oneLine(c.System, 200))
	}
	for _, msg := range c.Messages {
		printMessage(w, msg, 140)
	}
}
