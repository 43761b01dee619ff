package engine

import (
	"context"
	"fmt"
)

// Owed is the indexing work queued and not done yet (the outbox), in the
// terms a search sees it. A stored message is always found by its words:
// a resource's lexical index is filled from the store when first searched,
// so a message not indexed yet is found all the same (on Postgres an
// append writes its lexical entries with the message). What a search may
// miss is its embedding.
type Owed struct {
	// Embeddings counts the stored messages without a vector of the
	// engine's embedder that are queued for one: a search finds them by
	// their words only, and its vector channel reads "degraded: N of M
	// messages not embedded yet" until they are computed.
	Embeddings int64
	// Erasures counts the erased messages whose removal from the index
	// files is queued: no search returns them meanwhile, but the files
	// still hold their text.
	Erasures int64
}

// Owed counts the indexing work queued: what a command stopped part-way
// left for the next drain (the next command that writes, or Check). It
// reads the database only. Errors: ErrClosed, ErrNilContext, or the
// database's.
func (e *Engine) Owed(ctx context.Context) (Owed, error) {
	if err := e.checkOpen(ctx); err != nil {
		return Owed{}, err
	}
	_, _, embeddings, err := e.ms.EmbeddingCounts(ctx, e.embedder().ID())
	if err != nil {
		return Owed{}, fmt.Errorf("engine: count the embeddings owed: %w", err)
	}
	o := Owed{Embeddings: embeddings}
	last, ok, err := e.ms.LastDelete(ctx)
	if err == nil && ok {
		o.Erasures, err = e.ms.PendingDeletes(ctx, last)
	}
	if err != nil {
		return Owed{}, fmt.Errorf("engine: count the erasures owed: %w", err)
	}
	return o, nil
}
