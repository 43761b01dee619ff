package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// This file opens the engine on Postgres (Config.Postgres, issue 17). The
// owners of the tables (internal/msgstore, journal, working, observe) run
// on a *sql.DB over the pgx pool, in the Postgres dialect
// (store.DialectOf); Postgres is the authority and holds the indexes
// (internal/pgstore: lexical entries with their BM25 statistics, vectors
// under HNSW), so the engine process keeps nothing of its own: no data
// directory, no lock file, no bleve index, no quarantine. Several
// processes serve one database at once; the outbox, which on Postgres
// only owes embeddings, is shared through ClaimOutbox (outbox.go).

// openPostgres opens the engine on cfg.Postgres: the pool (pgstore.Open,
// which migrates under an advisory lock), a *sql.DB on the same pool, then
// the engine as on SQLite (start).
func openPostgres(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Dir != "" {
		return nil, invalid(-1, "Dir", "must be empty when Postgres is set: the memory is kept in the database (give Dir or Postgres, not both)")
	}
	pool, err := pgstore.Open(ctx, cfg.Postgres)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return start(ctx, cfg, "", stdlib.OpenDBFromPool(pool), pool)
}

// onPostgres reports whether the engine runs on Postgres.
func (e *Engine) onPostgres() bool { return e.pool != nil }

// openPostgresIndexes is openIndexes on Postgres: the embedder is
// registered (its HNSW index created once), and the outbox drainer starts
// to compute the embeddings owed. There is no index to open or rebuild:
// lexical entries are written with the messages, in the append's
// transaction.
func (e *Engine) openPostgresIndexes(ctx context.Context) error {
	e.idx.kick = make(chan struct{}, 1)
	emb := e.embedder()
	if _, err := pgstore.EnsureEmbedder(ctx, e.pool, emb.ID(), emb.Dims()); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return e.spawn(e.runOutbox)
}

// searchPostgres is the recall search on Postgres.
func (e *Engine) searchPostgres(ctx context.Context, q recall.Query) (*recall.Result, error) {
	s := e.idx.pg
	if s == nil {
		return &recall.Result{Retrieval: recall.Unavailable("recall on Postgres is not available in this build")}, nil
	}
	return s.Search(ctx, q)
}

// searcher is a recall search over one backend's indexes: *recall.Index on
// SQLite (bleve and the loaded vector shards), the Postgres searcher on
// Postgres.
type searcher interface {
	Search(ctx context.Context, q recall.Query) (*recall.Result, error)
}

// reindexPostgres is Reindex on Postgres: with reembed the current
// embedder's vectors are deleted; every message without one is queued and
// the outbox drained.
func (e *Engine) reindexPostgres(ctx context.Context, reembed bool) error {
	emb := e.embedder().ID()
	if reembed {
		if err := e.ms.DeleteEmbeddings(ctx, emb); err != nil {
			return fmt.Errorf("engine: drop embeddings: %w", err)
		}
	}
	if _, err := e.ms.QueueMissingEmbeddings(ctx, emb, time.Now()); err != nil {
		return fmt.Errorf("engine: queue embeddings: %w", err)
	}
	return e.SyncIndexes(ctx)
}
