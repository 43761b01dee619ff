package main

import (
	"context"
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
	keep := fs.Bool("keep", false, "keep the scratch data directory and print its path")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return c.usagef(fs, "demo takes no arguments")
	}
	dir, err := os.MkdirTemp("", "mnemo-demo-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(c.Stdout, "data directory: %s (kept)\n\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	e, err := c.openAt(ctx, filepath.Join(dir, "data"))
	if err != nil {
		return err
	}
	defer e.Close()

	rep, err := demodata.Ingest(ctx, e, dir)
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
	data := filepath.Join(dir, "data")
	if *keep {
		fmt.Fprintf(c.Stdout, "\nInspect it again: mnemo --dir %s memctx %s; mnemo --dir %s replay %s --without recalled\n", data, demoRunID, data, demoRunID)
	} else {
		fmt.Fprintf(c.Stdout, "\n(The scratch data directory is removed; run 'mnemo demo --keep' to inspect it with mnemo memctx and mnemo replay.)\n")
	}
	return nil
}
