package engine

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/pgstore"
)

// checkPostgres is CheckWith on Postgres. SQLite's file checks (its
// integrity check, the lexical index's segments) have no counterpart: the
// server keeps its own files, and its indexes are maintained in the
// transactions that change the rows. What is checked is what mnemo's own
// logic could get wrong, after draining the outbox: seqs gap-free and
// matching the threads' counters, dispatches naming stored messages, every
// stored message with a lexical entry and embedded by the configured
// embedder (and no entry or embedding of another message), the BM25
// statistics matching a recount of the lexical entries, damaged embeddings
// and pending outbox rows. With opts.Full every message is compared with
// its stored digest too (checkDigests), and so it is without opts.Full
// when the rest found a problem: a garbled one (altered outside
// mnemo) is reported in CheckError.Database, as on SQLite, though
// `mnemo salvage` does not apply (restore from a backup).
func (e *Engine) checkPostgres(ctx context.Context, opts CheckOptions) error {
	var dbProblems []string
	if opts.Full {
		var err error
		if dbProblems, err = e.checkDigests(ctx); err != nil {
			return err
		}
	}
	problems, _, reembed, err := e.checkIndexes(ctx, opts.Full)
	if err != nil {
		return err
	}
	if !opts.Full && len(problems) > 0 {
		// As on SQLite, a disagreement escalates to the full checks: a
		// message altered outside mnemo is not what reindex repairs.
		if dbProblems, err = e.checkDigests(ctx); err != nil {
			return err
		}
	}
	if len(dbProblems) > 0 || len(problems) > 0 {
		return &CheckError{Database: dbProblems, Problems: problems, Reembedding: reembed}
	}
	return nil
}

// checkPostgresDerived compares the stored messages (stored) with their
// lexical entries and embeddings by the configured embedder, and reports
// pending outbox rows and damaged embeddings (with reembed: checkDamaged
// queues them).
func (e *Engine) checkPostgresDerived(ctx context.Context, stored map[string]bool, add, reembed func(string, ...any)) error {
	lex, err := pgstore.LexicalIDs(ctx, e.pool)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	diff(stored, lex, "lexical entries", add)
	if err := e.checkLexicalStats(ctx, add); err != nil {
		return err
	}
	emb := e.embedder()
	vec, err := e.ms.EmbeddedIDs(ctx, emb.ID())
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	diff(stored, vec, "embeddings ("+emb.ID()+")", add)
	// Pending rows are counted before checkDamaged queues its own.
	pending, err := e.ms.PendingOutbox(ctx)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if pending > 0 {
		add("%s still pending (retrying after failures, or being embedded by another process)", count(pending, "outbox row", "outbox rows"))
	}
	return e.checkDamaged(ctx, emb, reembed) // damaged.go
}

// maxStatsProblems bounds the resources with wrong BM25 statistics Check
// lists.
const maxStatsProblems = 100

// checkLexicalStats reports the resources whose BM25 statistics (document
// count, total length, document frequencies) differ from a recount of
// their lexical entries; Reindex recomputes them.
func (e *Engine) checkLexicalStats(ctx context.Context, add func(string, ...any)) error {
	ms, err := pgstore.StatsMismatches(ctx, e.pool, maxStatsProblems+1)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	for i, m := range ms {
		if i == maxStatsProblems {
			add("more resources with wrong lexical statistics (listed the first %d): mnemo reindex recomputes them", maxStatsProblems)
			break
		}
		add("resource %s: lexical statistics differ from its lexical entries (stored %s of %s in all, recounted %d of %d; %s wrong; answer types stored %v, recounted %v): mnemo reindex recomputes them",
			m.ResourceID, count(m.Docs, "document", "documents"), count(m.TotalLen, "term", "terms"), m.CountedDocs, m.CountedLen, count(m.Terms, "document frequency", "document frequencies"), m.AnswerDF, m.CountedAnswerDF)
	}
	return nil
}
