package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

func (m *Main) runReindex(ctx context.Context, args []string) error {
	fs := m.flags("reindex", "")
	reembed := fs.Bool("reembed", false, "also recompute the embeddings of the configured embedder (--embedder)")
	fs.BoolVar(reembed, "vectors", false, "same as --reembed")
	if err := parse(fs, args); err != nil {
		return err
	}
	m.switchEmbedder = *reembed
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	start := time.Now()
	if err := m.withProgress(ctx, e, "reindexing (lexical, vectors)", func() error { return e.Reindex(ctx, *reembed) }); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "reindexed in %.1f s\n", time.Since(start).Seconds())
	return e.Check(ctx)
}

func (m *Main) runCheck(ctx context.Context, args []string) error {
	fs := m.flags("check", "")
	full := fs.Bool("full", false, "run SQLite's full integrity_check (slower: reads every index) instead of quick_check")
	if err := parse(fs, args); err != nil {
		return err
	}
	e, err := m.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	err = e.CheckWith(ctx, engine.CheckOptions{Full: *full})
	var ce *engine.CheckError
	if errors.As(err, &ce) {
		m.printCheckAdvice(ce)
		return err
	}
	if err != nil {
		return err
	}
	pragma := "quick_check"
	if *full {
		pragma = "integrity_check"
	}
	fmt.Fprintf(m.Stdout, "ok: the database passes SQLite's %s; every stored message is in both indexes, nothing else is, seqs are gap-free\n", pragma)
	return nil
}

// printCheckAdvice lists what check found and says what to do about it.
func (m *Main) printCheckAdvice(ce *engine.CheckError) {
	if len(ce.Database) > 0 {
		fmt.Fprintf(m.Stderr, "mnemo check: the database file %s is damaged (SQLite's integrity check):\n", filepath.Join(m.Dir, engine.DatabaseFile))
		for _, p := range ce.Database {
			fmt.Fprintf(m.Stderr, "  %s\n", p)
		}
		fmt.Fprintf(m.Stderr, "What to do: stop every process using %s, restore %s from a backup (and delete %s-wal and %s-shm beside it), then run 'mnemo --dir %s reindex' to rebuild the indexes from it. Without a backup, 'sqlite3 %s .recover | sqlite3 recovered.db' salvages what is still readable into a new file to put in its place. The indexes are derived from the database and cannot repair it.\n",
			m.Dir, engine.DatabaseFile, engine.DatabaseFile, engine.DatabaseFile, m.Dir, engine.DatabaseFile)
	}
	if len(ce.Problems) > 0 {
		fmt.Fprintln(m.Stderr, "mnemo check: the indexes disagree with the database:")
		for _, p := range ce.Problems {
			fmt.Fprintf(m.Stderr, "  %s\n", p)
		}
	}
	switch {
	case len(ce.Database) > 0:
	case ce.Rebuilt != "" && len(ce.Problems) == 1:
		fmt.Fprintf(m.Stderr, "The damaged index was moved to %s and rebuilt from the database: nothing is lost, and the next check should pass. Damage that comes back points at the disk. The quarantined copy is removed by the next erasure, or delete it yourself.\n", ce.Rebuilt)
	case len(ce.Problems) > 0:
		fmt.Fprintf(m.Stderr, "What to do: run 'mnemo --dir %s reindex' to rebuild the indexes from the database (add --vectors to recompute the embeddings too).\n", m.Dir)
	}
}

// withProgress runs fn, which queues every message in the outbox and drains
// it, with a progress bar of the messages done on a terminal.
func (m *Main) withProgress(ctx context.Context, e *engine.Engine, what string, fn func() error) error {
	st, err := e.Stats(ctx)
	if err != nil {
		return fn()
	}
	return m.outboxProgress(ctx, e, st.Messages, what, fn)
}
