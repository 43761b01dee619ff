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
	if !e.mayHoldDamaged() {
		return 0, nil
	}
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

// mayHoldDamaged reports whether stored embeddings of the current
// embedder can have the wrong length, so that Open must look for them. On
// Postgres an embedder with an HNSW index (every one of up to
// pgstore.MaxHalfvecIndexDims dimensions) cannot: the table's CHECK keeps
// dims equal to vector_dims(vector), and the index's expression
// vector::vector(N), N the dimensions EnsureEmbedder holds the embedder
// to, refuses a row of any other (TestPostgresDamageImpossible). The scan
// it saves read every stored vector at each open: 185-430 ms at 10k
// embeddings on a loaded 2-core machine (BENCHMARKS.md, "Postgres open:
// the damaged-embedding scan"). SQLite's blobs are checked by nothing.
func (e *Engine) mayHoldDamaged() bool {
	return !e.onPostgres() || !e.idx.pgIndexed
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
