package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/demodata"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// Demo identifiers.
const (
	demoResource = demodata.Resource
	demoThread   = demodata.TodayThread
	demoRunID    = "demo-run-1"
)

// DemoCommand is `mnemo demo`: run the main job on a shipped sample
// conversation (no network). Like every command it embeds Main: the process
// environment and the global flags.
type DemoCommand struct{ *Main }

// Run parses the flags of `mnemo demo` from args and runs it.
func (c *DemoCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("demo", "")
	keep := fs.Bool("keep", false, "keep the scratch data directory and print its path (with --dir DIR, DIR is the data directory, new or empty, and is kept)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.noArgs(fs, "")
	}
	data, scratch, err := c.demoDirs(fs, *keep)
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	kept := *keep || c.dirFlag
	if kept {
		fmt.Fprintf(c.Stdout, "data directory: %s (kept)\n\n", data)
	}
	e, err := c.openAt(ctx, data)
	if err != nil {
		return err
	}
	defer e.CloseContext(ctx)

	rep, err := demodata.Ingest(ctx, e, scratch)
	if err != nil {
		return err
	}
	if err := e.SyncIndexes(ctx); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "1. Ingested the sample conversation: %d resource, %d threads, %d messages (secrets redacted before storage).\n\n",
		rep.Resources, rep.Threads, rep.Messages)
	threads, err := e.ListThreads(ctx, demoResource)
	if err != nil {
		return err
	}
	for _, t := range threads {
		fmt.Fprintf(c.Stdout, "   %-20s %2d messages  %s\n", t.ID, t.MessageCount, t.UpdatedAt.Format("2006-01-02"))
	}
	work, err := e.Messages(ctx, "ana:work", 1, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "\n   stored ana:work #1: %s\n", oneLine(work[0].Content, 120))

	q := demodata.TodayQuestion
	fmt.Fprintf(c.Stdout, "\n2. LoadContext for thread %s, run %s, recent window 2, recall topK 2 with range 1 over resource %s.\n   Query: %s\n\n",
		demoThread, demoRunID, demoResource, q)
	lc, err := e.LoadContext(ctx, engine.LoadRequest{
		RunID: demoRunID, ThreadID: demoThread, ResourceID: demoResource, Query: q, RecentN: 2,
		Recall: &recall.Options{TopK: 2, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource},
	})
	if err != nil {
		return err
	}
	printContext(c.Stdout, lc)

	fmt.Fprintf(c.Stdout, "\n3. Counterfactual replay of run %s without the recalled turns: the prompt the model would have seen without recall.\n\n", demoRunID)
	r, err := e.Replay(ctx, demoRunID, engine.ReplayOptions{WithoutRecalled: true})
	if err != nil {
		return err
	}
	printReplay(c.Stdout, r, true)
	if kept {
		fmt.Fprintf(c.Stdout, "\nInspect it again: mnemo --dir %s memctx %s; mnemo --dir %s replay %s --without recalled\n", shellWord(data), demoRunID, shellWord(data), demoRunID)
	} else {
		fmt.Fprintf(c.Stdout, "\nThe scratch data directory is removed; to keep it for mnemo memctx and mnemo replay, run: mnemo demo --keep\n")
	}
	return nil
}

// demoDirs returns the demo's data directory and a scratch directory the
// caller removes (the sample file is written there; without --dir the data
// directory is inside it, removed with it unless keep). --dir DIR is the
// data directory itself, kept: it must be new or empty, so the demo's
// sample never lands in a memory of the user's. $MNEMO_DIR is not read,
// for the same reason. One that holds files is refused in two lines, the
// hint and helpHint (valuef): it printed every flag of demo after the hint.
func (c *DemoCommand) demoDirs(fs *flag.FlagSet, keep bool) (data, scratch string, err error) {
	if c.dirFlag {
		if ents, err := os.ReadDir(c.Dir); err == nil && len(ents) > 0 {
			return "", "", c.valuef(fs, "demo writes a sample conversation into --dir, which must be new or empty: %s holds files (leave --dir out for a scratch directory)", c.Dir)
		}
	}
	if scratch, err = os.MkdirTemp("", "mnemo-demo-"); err != nil {
		return "", "", err
	}
	if c.dirFlag {
		return c.Dir, scratch, nil
	}
	data = filepath.Join(scratch, "data")
	if keep { // the data directory outlives the scratch directory removed at the end
		if data, err = os.MkdirTemp("", "mnemo-demo-data-"); err != nil {
			return "", "", err
		}
	}
	return data, scratch, nil
}
