package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// notInstalled returns the error of the directory's embedder when check
// opened it unloaded (engine.Config.LazyEmbedder) and it cannot load
// because use-lite's weights are not installed: the messages still to
// embed then stay owed, and check's findings (missing from the vector
// index, outbox rows pending) come from that, not from damage. Nil
// otherwise. It is asked only when check found problems to reindex
// (ce), so a passing check never loads the weights; when they are
// installed and unloaded this loads them (about 2 s).
func notInstalled(ctx context.Context, e *engine.Engine, ce *engine.CheckError) error {
	l := recall.Lazy(e.Embedder())
	if ce == nil || l == nil || l.Loaded() || checkAction(ce) != "reindex" {
		return nil
	}
	_, err := l.Load(ctx)
	if !errors.Is(err, uselite.ErrNotInstalled) {
		return nil
	}
	var me *engine.EmbedderMismatchError
	if errors.As(err, &me) && me.Cause != nil {
		return me.Cause // "use-lite is not installed in DIR (mnemo models fetch use-lite)"
	}
	return err
}

// printNotInstalled says why the embeddings are owed (notInstalled's
// error) and what to do: install the weights, after which the next
// command that drains the outbox embeds them once their retry is due. Without it check said only "run mnemo
// reindex", which cannot embed them either.
func (c *CheckCommand) printNotInstalled(err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(c.Stderr, "The missing embeddings are owed, not lost (their messages are indexed lexically): %v. Once it is, a mnemo command that opens the directory (mnemo serve, %s) embeds them on their next retry, within 5 minutes (the outbox's longest backoff); reindex --vectors needs it too.\n",
		err, c.target().mnemo("check"))
}
