package engine

import (
	"context"
	"fmt"
	"time"
)

// repairOnOpen brings derived state back in line with SQLite at Open, after
// the lexical index was opened (and quarantined or queued for a rebuild when
// needed, recall.go): it completes erasures a crash interrupted (erase.go)
// and queues the re-embedding of messages whose stored embedding is missing
// (a lost or deleted vector state), so that no derived damage is fatal and
// all of it converges from the store. On Postgres it also writes the
// lexical entries of messages stored without one or with one whose answer
// types are not tagged (a database migrated from schema version 2).
func (e *Engine) repairOnOpen(ctx context.Context) error {
	if err := e.resumeErasures(ctx); err != nil {
		return err
	}
	if e.onPostgres() {
		n, err := e.indexUnindexed(ctx) // postgres.go
		if err != nil {
			return err
		}
		if n > 0 {
			e.log.Warn("messages without a complete lexical entry: indexed", "n", n)
			e.publish(Event{Reason: EventRebuild, Count: n, Detail: count(n, "message", "messages") + " had no complete lexical entry (none, or answer types not tagged); indexed"})
		}
	}
	return e.queueMissingEmbeddings(ctx)
}

// queueMissingEmbeddings queues an "embed" outbox row for every message
// without an embedding by the current embedder and without a pending
// outbox row, after deleting the damaged ones (wrong length). A cheap
// count comparison runs first. Once mnemo.db is found damaged
// (damagedFile: the record an earlier process left) it writes nothing,
// as no other Open-time write does (the working-memory configuration):
// it logs a warning, and the open after a restore or a salvage repairs
// them.
func (e *Engine) queueMissingEmbeddings(ctx context.Context) error {
	if err := e.damagedFile(); err != nil {
		e.log.WarnContext(ctx, "engine: the stored embeddings were not repaired at open (damaged ones not deleted, missing ones not queued): the database file was found damaged", "err", err)
		return nil
	}
	if _, err := e.dropDamagedEmbeddings(ctx); err != nil { // damaged.go
		return err
	}
	emb := e.embedder().ID()
	messages, vectors, pending, err := e.ms.EmbeddingCounts(ctx, emb)
	if err != nil {
		return fmt.Errorf("engine: count embeddings: %w", err)
	}
	if vectors+pending >= messages {
		return nil
	}
	n, err := e.ms.QueueMissingEmbeddings(ctx, emb, time.Now())
	if err != nil {
		return fmt.Errorf("engine: queue missing embeddings: %w", err)
	}
	if n > 0 {
		e.log.Warn("stored embeddings missing: re-embedding", "n", n, "embedder", emb)
		e.publish(Event{Reason: EventRebuild, Count: int(n), Detail: fmt.Sprintf("%s had no stored %s embedding; re-embedding", count(n, "message", "messages"), emb)})
		e.kickOutbox()
	}
	return nil
}
