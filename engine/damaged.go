package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// This file handles stored embeddings of the wrong length (a damaged row:
// a blob whose length is not 4×dims, or dims other than the embedder's).
// They are derived data, so they are never fatal: recall skips them when a
// resource loads, the engine deletes them and queues the messages for
// embedding again through the outbox, Open does the same for every damaged
// row, and Check reports the ones still stored.

// requeueDamaged is recall.Config.Damaged: it deletes the damaged stored
// embeddings of ids (those still damaged) and queues their messages for
// embedding. A failure is logged: the next load reports them again.
func (e *Engine) requeueDamaged(ctx context.Context, resource string, ids []string) {
	emb := e.embedder()
	n, err := e.ms.RequeueDamaged(ctx, emb.ID(), emb.Dims(), ids, time.Now())
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
	n, err := e.ms.DropDamaged(ctx, emb.ID(), emb.Dims())
	if err != nil {
		return 0, fmt.Errorf("engine: drop damaged embeddings: %w", err)
	}
	if n > 0 {
		e.log.Warn("damaged stored embeddings deleted: re-embedding", "n", n, "embedder", emb.ID())
	}
	return n, nil
}

// checkDamaged adds a Check problem for the damaged stored embeddings of
// the index's embedder.
func (e *Engine) checkDamaged(ctx context.Context, emb recall.Embedder, add func(string, ...any)) error {
	n, example, err := e.ms.CountDamaged(ctx, emb.ID(), emb.Dims())
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if n > 0 {
		add("%d stored %s embeddings damaged (wrong length; e.g. %s)", n, emb.ID(), example)
	}
	return nil
}
