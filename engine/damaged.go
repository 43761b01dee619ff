package engine

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// This file handles stored embeddings of the wrong length (a damaged row:
// a blob whose length is not 4×dims, or dims other than the embedder's).
// They are derived data, so they are never fatal: recall skips them when a
// resource loads, the engine deletes them and queues the messages for
// embedding again through the outbox, Open does the same for every damaged
// row, and Check reports the ones still stored.

// damagedWhere selects the current embedder's damaged rows; its arguments
// are the embedder id and dimension.
const damagedWhere = `embedder = ? AND (dims != ? OR length(vector) != 4 * dims)`

// requeueDamaged is recall.Config.Damaged: it deletes the damaged stored
// embeddings of ids (those still damaged) and queues their messages for
// embedding. A failure is logged: the next load reports them again.
func (e *Engine) requeueDamaged(ctx context.Context, resource string, ids []string) {
	emb := e.embedder()
	var n int64
	err := e.tx(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(ids); start += 500 {
			chunk := ids[start:min(start+500, len(ids))]
			in := `(?` + strings.Repeat(",?", len(chunk)-1) + `)`
			args := []any{emb.ID(), emb.Dims()}
			for _, id := range chunk {
				args = append(args, id)
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE `+damagedWhere+` AND message_id IN `+in, args...)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
			args = append([]any{opEmbed, time.Now().UnixMilli()}, args[2:]...)
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at)
				SELECT ?, m.id, m.resource_id, ? FROM messages m WHERE m.id IN `+in+`
				AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.message_id = m.id)`, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.log.Warn("damaged stored embeddings: queueing re-embedding failed", "resource", resource, "n", len(ids), "err", err)
		return
	}
	if n > 0 {
		e.log.Warn("damaged stored embeddings skipped: re-embedding", "resource", resource, "n", n, "embedder", emb.ID())
		e.publish(Event{Reason: EventRebuild, ResourceID: resource, Count: int(n),
			Detail: fmt.Sprintf("%d stored %s embeddings had the wrong length; re-embedding", n, emb.ID())})
		e.kickOutbox()
	}
}

// dropDamagedEmbeddings deletes every damaged stored embedding of the
// current embedder (at Open, before the missing ones are queued) and
// returns how many.
func (e *Engine) dropDamagedEmbeddings(ctx context.Context) (int64, error) {
	emb := e.embedder()
	res, err := e.db.ExecContext(ctx, `DELETE FROM embeddings WHERE `+damagedWhere, emb.ID(), emb.Dims())
	if err != nil {
		return 0, fmt.Errorf("engine: drop damaged embeddings: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		e.log.Warn("damaged stored embeddings deleted: re-embedding", "n", n, "embedder", emb.ID())
	}
	return n, nil
}

// checkDamaged adds a Check problem for the damaged stored embeddings of
// the index's embedder.
func (e *Engine) checkDamaged(ctx context.Context, emb recall.Embedder, add func(string, ...any)) error {
	var n int64
	var example sql.NullString
	if err := e.db.QueryRowContext(ctx, `SELECT COUNT(*), MIN(message_id) FROM embeddings WHERE `+damagedWhere, emb.ID(), emb.Dims()).Scan(&n, &example); err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if n > 0 {
		add("%d stored %s embeddings damaged (wrong length; e.g. %s)", n, emb.ID(), example.String)
	}
	return nil
}
