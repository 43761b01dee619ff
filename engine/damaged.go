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
// row (on SQLite when the schema's triggers saw one written, or the first
// row's dims differ from the embedder's: msgstore's damaged.go), and Check
// reports the ones still stored and marks them for the next Open.

// requeueDamaged is recall.Config.Damaged: it deletes the stored
// embeddings of ids (found damaged by recall's load: the wrong length, or a
// NaN or ±Inf value) and queues their messages for embedding. A failure is
// logged: the next load reports them again. Once mnemo.db is found
// damaged (damagedFile) it writes nothing, as no new data is stored into
// it: recall skips the vectors meanwhile, and the open after a restore or
// a salvage finds them again.
func (e *Engine) requeueDamaged(ctx context.Context, resource string, ids []string) {
	if err := e.damagedFile(); err != nil {
		e.log.DebugContext(ctx, "damaged stored embeddings skipped, not re-embedded: the database file was found damaged", "resource", resource, "n", len(ids))
		return
	}
	emb := e.embedder()
	n, err := e.ms.RequeueDamaged(ctx, emb.ID(), ids, time.Now())
	if err != nil {
		e.log.Warn("damaged stored embeddings: queueing re-embedding failed", "resource", resource, "n", len(ids), "err", err)
		return
	}
	if n > 0 {
		e.log.Warn("damaged stored embeddings skipped: re-embedding", "resource", resource, "n", n, "embedder", emb.ID())
		e.publish(Event{Reason: EventRebuild, ResourceID: resource, Count: int(n),
			Detail: fmt.Sprintf("%s damaged (wrong length or not finite); re-embedding", wasWere(storedEmbeddings(int(n), emb.ID()), n))})
		e.kickOutbox()
	}
}

// dropDamagedEmbeddings deletes every damaged stored embedding of the
// current embedder (at Open, before the missing ones are queued) and
// returns how many; it reads the stored vectors only when some may be
// damaged (mayHoldDamaged).
func (e *Engine) dropDamagedEmbeddings(ctx context.Context) (int64, error) {
	may, err := e.mayHoldDamaged(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine: drop damaged embeddings: %w", err)
	}
	if !may {
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
// embedder can have the wrong length, so that Open must read them all to
// find them. On SQLite only when msgstore.DamageSuspected says so (the
// schema's triggers saw one written, the first row's dims are not the
// embedder's, or a trigger is gone; a lookup of one index entry and one
// row): the scan it saves read every stored row at each open, and an open
// of 100k messages fell from 37.7 to 24.4 ms (medians of 10 alternated
// pairs; BENCHMARKS.md, "Open: the damaged-embedding scan on SQLite"). On
// Postgres an embedder with an HNSW index (every one of up to
// pgstore.MaxHalfvecIndexDims dimensions) cannot: the table's CHECK keeps
// dims equal to vector_dims(vector), and the index's expression
// vector::vector(N), N the dimensions EnsureEmbedder holds the embedder
// to, refuses a row of any other (TestPostgresDamageImpossible). The scan
// it saves read every stored vector at each open: 185-430 ms at 10k
// embeddings on a loaded 2-core machine (BENCHMARKS.md, "Postgres open:
// the damaged-embedding scan").
func (e *Engine) mayHoldDamaged(ctx context.Context) (bool, error) {
	if e.onPostgres() {
		return !e.idx.pgIndexed, nil
	}
	emb := e.embedder()
	return e.ms.DamageSuspected(ctx, emb.ID(), emb.Dims())
}

// checkDamaged adds a Check problem for the damaged stored embeddings of
// the index's embedder, and marks the embedder so that the next Open
// deletes them and embeds their messages again (the schema's triggers see
// only damage written through SQLite).
func (e *Engine) checkDamaged(ctx context.Context, emb recall.Embedder, add func(string, ...any)) error {
	n, example, err := e.ms.CountDamaged(ctx, emb.ID(), emb.Dims())
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if n > 0 {
		add("%s damaged (wrong length; e.g. %s): deleted and queued for embedding again by the next open", storedEmbeddings(int(n), emb.ID()), example)
		if err := e.ms.SuspectDamage(ctx, emb.ID()); err != nil {
			return fmt.Errorf("engine: check: mark damaged embeddings: %w", err)
		}
	}
	return e.checkNonFinite(ctx, emb, add)
}

// checkNonFinite adds a Check problem for the stored embeddings of emb
// that hold a NaN or ±Inf value, and queues their messages for embedding
// again (the next Open's scan looks at lengths only; recall skips such a
// vector only when its resource loads from the database, not from a
// snapshot).
func (e *Engine) checkNonFinite(ctx context.Context, emb recall.Embedder, add func(string, ...any)) error {
	ids, err := e.ms.NonFiniteEmbeddings(ctx, emb.ID(), emb.Dims())
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	add("%s damaged (a NaN or ±Inf value; e.g. %s): queued for embedding again", storedEmbeddings(len(ids), emb.ID()), ids[0])
	if _, err := e.ms.RequeueDamaged(ctx, emb.ID(), ids, time.Now()); err != nil {
		return fmt.Errorf("engine: check: queue damaged embeddings: %w", err)
	}
	e.kickOutbox()
	return nil
}

// wasWere is what followed by "was" when n is 1, else by "were".
func wasWere(what string, n int64) string {
	if n == 1 {
		return what + " was"
	}
	return what + " were"
}

// storedEmbeddings says n stored embeddings of the embedder id: "1 stored
// hash-384 embedding", "5 stored hash-384 embeddings".
func storedEmbeddings(n int, id string) string {
	if n == 1 {
		return "1 stored " + id + " embedding"
	}
	return fmt.Sprintf("%d stored %s embeddings", n, id)
}
