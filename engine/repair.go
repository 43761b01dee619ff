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
// all of it converges from the store.
func (e *Engine) repairOnOpen(ctx context.Context) error {
	if err := e.resumeErasures(ctx); err != nil {
		return err
	}
	return e.queueMissingEmbeddings(ctx)
}

// queueMissingEmbeddings queues an "embed" outbox row for every message
// without an embedding by the current embedder and without a pending
// outbox row, after deleting the damaged ones (wrong length). A cheap
// count comparison runs first.
func (e *Engine) queueMissingEmbeddings(ctx context.Context) error {
	if _, err := e.dropDamagedEmbeddings(ctx); err != nil { // damaged.go
		return err
	}
	emb := e.embedder().ID()
	var messages, vectors, pending int64
	if err := e.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM embeddings WHERE embedder = ?), (SELECT COUNT(*) FROM outbox WHERE op IN (?, ?))`,
		emb, opIndex, opEmbed).Scan(&messages, &vectors, &pending); err != nil {
		return fmt.Errorf("engine: count embeddings: %w", err)
	}
	if vectors+pending >= messages {
		return nil
	}
	res, err := e.db.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at)
		SELECT ?, m.id, m.resource_id, ? FROM messages m
		WHERE NOT EXISTS (SELECT 1 FROM embeddings x WHERE x.message_id = m.id AND x.embedder = ?)
		  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)
		ORDER BY m.pk`, opEmbed, time.Now().UnixMilli(), emb)
	if err != nil {
		return fmt.Errorf("engine: queue missing embeddings: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		e.log.Warn("stored embeddings missing: re-embedding", "n", n, "embedder", emb)
		e.publish(Event{Reason: EventRebuild, Count: int(n), Detail: fmt.Sprintf("%d messages had no stored %s embedding; re-embedding", n, emb)})
		e.kickOutbox()
	}
	return nil
}
