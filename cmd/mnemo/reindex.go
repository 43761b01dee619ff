package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
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
	if !*reembed {
		c.noteKeptEmbedder(e)
	}
	start := time.Now()
	err = c.withProgress(ctx, e, "reindexing (lexical, vectors)", func() error { return e.Reindex(ctx, *reembed) })
	if err == nil {
		fmt.Fprintf(c.Stdout, "reindexed in %.1f s\n", time.Since(start).Seconds())
		err = e.Check(ctx) // on Postgres it syncs, and may wait, too
	}
	watch.Stop()
	return reindexStopped(ctx, err)
}

// noteKeptEmbedder says, on standard error, which embedder a reindex
// without --vectors uses when --embedder or $MNEMO_EMBEDDER named openai
// and the directory is embedded with a built-in one: the directory's, its
// stored embeddings kept. It ran silently with hash-384 (fix52). Another
// named embedder that is not the directory's is refused at open
// (engine.EmbedderMismatchError), saying the same.
func (c *ReindexCommand) noteKeptEmbedder(e *engine.Engine) {
	id := e.Embedder().ID()
	if c.Embedder != "openai" || id != recall.HashID && id != uselite.ID {
		return
	}
	from := "--embedder"
	if c.embedderEnv {
		from = "$MNEMO_EMBEDDER"
	}
	dir := "the database"
	if c.DB == "" {
		dir = c.Dir
	}
	fmt.Fprintf(c.Stderr, "mnemo reindex: note: %s names openai, but %s is embedded with %s: without --vectors reindex keeps the stored embeddings and uses %s; to re-embed every message with openai, run: %s\n",
		from, dir, id, id, c.target().mnemo("--embedder", "openai", "reindex", "--vectors"))
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
