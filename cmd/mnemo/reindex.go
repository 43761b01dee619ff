package main

import (
	"context"
	"fmt"
	"time"
)

func (m *Main) runReindex(ctx context.Context, args []string) error {
	fs := m.flags("reindex", "")
	reembed := fs.Bool("reembed", false, "also recompute the embeddings of the configured embedder (--embedder)")
	fs.BoolVar(reembed, "vectors", false, "same as --reembed")
	if err := parse(fs, args); err != nil {
		return err
	}
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	start := time.Now()
	if err := e.Reindex(ctx, *reembed); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "reindexed in %.1f s\n", time.Since(start).Seconds())
	return e.Check(ctx)
}

func (m *Main) runCheck(ctx context.Context, args []string) error {
	fs := m.flags("check", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.Check(ctx); err != nil {
		return err
	}
	fmt.Fprintln(m.Stdout, "ok: every stored message is in both indexes, nothing else is, seqs are gap-free")
	return nil
}
