package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// ReindexCommand is `mnemo reindex`: rebuild the lexical and vector indexes
// from the store. Like every command it embeds Main: the process environment
// and the global flags.
type ReindexCommand struct{ *Main }

// Run parses the flags of `mnemo reindex` from args and runs it.
func (c *ReindexCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags("reindex", "")
	reembed := fs.Bool("reembed", false, "also recompute the embeddings of the configured embedder (--embedder)")
	fs.BoolVar(reembed, "vectors", false, "same as --reembed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.noArgs(fs, ""); err != nil {
		return err
	}
	c.switchEmbedder = *reembed
	c.embedsNone = !*reembed // the stored embeddings are reused
	e, watch, err := c.openSyncing(ctx, c.target())
	if err != nil {
		return err
	}
	defer watch.Stop()
	defer e.CloseContext(ctx)
	start := time.Now()
	err = c.withProgress(ctx, e, "reindexing (lexical, vectors)", func() error { return e.Reindex(ctx, *reembed) })
	if err == nil {
		fmt.Fprintf(c.Stdout, "reindexed in %.1f s\n", time.Since(start).Seconds())
		err = e.Check(ctx) // on Postgres it syncs, and may wait, too
	}
	watch.Stop()
	return reindexStopped(ctx, err)
}

// reindexStopped is err, the error of a reindex, said as what is left
// when its context stopped it: the indexes are derived, so nothing stored
// is lost; a rebuild stopped after it began leaves the messages still to
// index queued, and the next command that drains goes on with them. It
// said "interrupted: begin: context canceled" (walk48 F10, readme48).
// err itself when not interrupted.
func reindexStopped(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, context.Canceled) {
		return err
	}
	return &interruptedError{"stopped during the rebuild: nothing stored is lost; the indexes may be rebuilt in part, and the messages still to index " +
		"stay queued: the next command that writes or searches goes on with them (or run mnemo reindex again)", err}
}

// withProgress runs fn, which queues every message in the outbox and drains
// it, with a progress bar of the messages done on a terminal.
func (c *ReindexCommand) withProgress(ctx context.Context, e *engine.Engine, what string, fn func() error) error {
	st, err := e.Stats(ctx)
	if err != nil {
		return fn()
	}
	return c.outboxProgress(ctx, e, st.Messages, what, fn)
}
