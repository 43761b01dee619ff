package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/store"
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
//
// Lock order on Postgres, within one transaction: a thread's append lock
// (internal/msgstore: ThreadHead, and every erasure's Erased* in byte order
// of the thread ids) before the thread's observation lock (observe:
// Invalidate, in the erasure's steps after msgstore's); the observer's own
// transactions take only the latter. The lexical statistics rows
// (lexical_stats, lexical_df) are locked last, by the triggers of the
// statement that writes or deletes lexical entries. A transaction Postgres
// still aborts to break a cycle (40P01) is run again (store.RunTx).

// openPostgres opens the engine on cfg.Postgres: the pool (pgstore.Open,
// which migrates under an advisory lock), the database's bounds when
// Config.SharedBounds says so (bounds.go), a *sql.DB on the same pool,
// then the engine as on SQLite (start), whose bounds BoundsStore stores.
func openPostgres(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Dir != "" {
		return nil, invalid(-1, "Dir", "must be empty when Postgres is set: the memory is kept in the database (give Dir or Postgres, not both)")
	}
	pool, err := pgstore.OpenWith(ctx, cfg.Postgres, pgstore.Options{MustExist: cfg.MustExist, MigrateUnderLoad: cfg.MigrateUnderLoad})
	if errors.Is(err, pgstore.ErrNoSchema) {
		return nil, fmt.Errorf("%w: %w", ErrNotDataDir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	shared, err := storedBounds(ctx, pool, &cfg) // bounds.go
	if err != nil {
		pool.Close()
		return nil, err
	}
	e, err := start(ctx, cfg, "", pgstore.DB(pool), pool)
	if err != nil {
		return nil, err
	}
	e.shared = shared
	if err := e.storeBounds(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// PoolCloseWait bounds how long Close waits, on Postgres, for the pool's
// connections to close. Closing one sends the server a cancel request and
// a Terminate message and waits for the server to end the connection
// (pgx bounds that at 15 s), so a server that stopped answering (a
// network black hole, a stopped process) held Close for 15 s or more; past
// PoolCloseWait the connections finish closing in the background, within
// pgx's 15 s. A connection still held by a call whose context never ends
// is closed when that call returns.
const PoolCloseWait = 2 * time.Second

// closePool closes the pool, waiting at most PoolCloseWait.
func (e *Engine) closePool() {
	done := make(chan struct{})
	go func() {
		e.pool.Close()
		close(done)
	}()
	t := time.NewTimer(PoolCloseWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		e.log.Warn("postgres: connections the server does not answer are left to close in the background", "waited", PoolCloseWait.String())
	}
}

// onPostgres reports whether the engine runs on Postgres.
func (e *Engine) onPostgres() bool { return e.pool != nil }

// Unavailable reports whether err, returned by one of e's methods, is a
// database outage rather than a fault of the request or of mnemo: on
// Postgres, a connection to the server that could not be made or was lost
// (refused, cut, or ended by the server's shutdown); a retry may
// succeed once the server is back.
// Always false on SQLite (the database is a local file) and for a nil err.
// The HTTP server answers such errors with 503 and Retry-After.
func (e *Engine) Unavailable(err error) bool {
	return err != nil && e.onPostgres() && pgstore.ConnectionLost(err)
}

// openPostgresIndexes is openIndexes on Postgres: the embedder is
// registered (its HNSW index created once) and the searcher built (the
// outbox drainer, started by start, computes the embeddings owed). There
// is no index to open or rebuild:
// lexical entries are written with the messages, in the append's
// transaction.
func (e *Engine) openPostgresIndexes(ctx context.Context) error {
	e.idx.kick = make(chan struct{}, 1)
	emb := e.embedder()
	reg, err := pgstore.EnsureEmbedder(ctx, e.pool, emb.ID(), emb.Dims())
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.idx.pgIndexed = reg.Index != ""
	s, err := pgrecall.New(pgrecall.Config{Pool: e.pool, Embedder: emb, Tuning: e.cfg.RecallTuning, Location: e.location,
		QueryEmbedTimeout: e.cfg.QueryEmbedTimeout})
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.idx.pg = s
	e.applySlots = make(chan struct{}, max(1, e.pool.Config().MaxConns/applyConns))
	return nil
}

// searchPostgres is the recall search on Postgres (internal/pgrecall),
// with the resource's embedding backlog (rows owing only an embedding do
// not make the lexical channel "catching up": lexical entries are written
// with the messages), and the re-rank stage when Config.Rerank is set.
func (e *Engine) searchPostgres(ctx context.Context, q recall.Query) (*recall.Result, error) {
	s := e.idx.pg
	if s == nil {
		return &recall.Result{Retrieval: recall.Unavailable("index closed")}, nil
	}
	q.Backlog, _ = e.backlog(ctx, q.ResourceID, false) // nothing erased is left in Postgres's indexes
	if e.cfg.Rerank != nil {
		return s.SearchReranked(ctx, q, *e.cfg.Rerank)
	}
	return s.Search(ctx, q)
}

// searcher is a recall search over one backend's indexes: *recall.Index on
// SQLite (bleve and the loaded vector shards), the Postgres searcher on
// Postgres; both run recall's re-rank stage (recall.Reranked).
type searcher interface {
	Search(ctx context.Context, q recall.Query) (*recall.Result, error)
	SearchReranked(ctx context.Context, q recall.Query, rr recall.Rerank) (*recall.Result, error)
}

// reindexPostgres is Reindex on Postgres: every message's lexical entry is
// written again from its text (an entry whose terms did not change is not
// rewritten) and the BM25 statistics are recomputed from the entries (in
// one transaction; see pgstore.RebuildStats); every message without a
// vector by the current embedder is queued, with reembed in the
// transaction that deletes its vectors (queueReembed), and the outbox
// drained.
func (e *Engine) reindexPostgres(ctx context.Context, reembed bool) error {
	all, err := e.ms.MessageIDs(ctx)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	ids := slices.Sorted(maps.Keys(all))
	for len(ids) > 0 {
		n := min(len(ids), outboxBatch)
		if err := e.relex(ctx, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	if err := e.tx(ctx, func(tx *store.Tx) error {
		_, err := pgstore.RebuildStats(ctx, tx)
		return err
	}); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := e.queueReembed(ctx, reembed); err != nil {
		return err
	}
	e.idx.afterQueue()
	return e.SyncIndexes(ctx)
}

// queueReembed queues an embedding for every message without one by the
// current embedder, after deleting its vectors when reembed, in one
// transaction (msgstore.ReembedAll): a search never finds the vectors
// gone with nothing owing them. In two steps, a search between them read
// the vector channel "ok" and found no vector; in one, it reads
// "degraded: N of M messages not embedded yet" until the drain is done.
func (e *Engine) queueReembed(ctx context.Context, reembed bool) error {
	emb := e.embedder().ID()
	if reembed {
		if _, err := e.ms.ReembedAll(ctx, emb, time.Now()); err != nil {
			return fmt.Errorf("engine: drop and queue embeddings: %w", err)
		}
		return nil
	}
	if _, err := e.ms.QueueMissingEmbeddings(ctx, emb, time.Now()); err != nil {
		return fmt.Errorf("engine: queue embeddings: %w", err)
	}
	return nil
}

// indexLexical writes, in the append's transaction tx, the lexical entries
// of the rows the append stored (seq after head's last; a row repeated in
// the request once): their terms are recall's analysed terms of the text
// the SQLite backend indexes (recall.Doc.Text), and the BM25 statistics
// follow in the same statement.
func (e *Engine) indexLexical(ctx context.Context, tx *store.Tx, head msgstore.ThreadHead, rows []row, res *AppendResult) error {
	docs := make([]pgstore.LexicalDoc, 0, res.Stored)
	seen := make(map[string]bool, res.Stored)
	for i := range rows {
		if res.Seqs[i] <= head.LastSeq || seen[rows[i].ID] {
			continue
		}
		seen[rows[i].ID] = true
		m := rows[i].Message
		m.ThreadID, m.ResourceID, m.Seq = res.ThreadID, head.ResourceID, res.Seqs[i]
		docs = append(docs, e.lexicalDoc(&m))
	}
	if err := pgstore.PutLexicalTx(ctx, tx, docs); err != nil {
		return fmt.Errorf("engine: index %d messages: %w", len(docs), err)
	}
	return nil
}

// lexicalDoc is m's lexical entry on Postgres: the analysed terms, the
// answer types and the relative date of the text the SQLite backend
// indexes (its relative date resolved in its resource's time zone).
func (e *Engine) lexicalDoc(m *Message) pgstore.LexicalDoc {
	d := docOf(m)
	text := d.Text()
	ld := pgstore.LexicalDoc{MessageID: m.ID, ResourceID: m.ResourceID, CreatedAt: m.CreatedAt.UnixMilli(),
		Terms: recall.Analyze(text), AnswerBits: recall.AnswerBits(text)}
	if r := recall.RelativeDate(text, m.CreatedAt, e.location(m.ResourceID)); !r.IsZero() {
		ld.RefFrom, ld.RefTo, ld.RefMonths = r.From.UnixMilli(), r.To.UnixMilli(), r.Months()
	}
	return ld
}

// relex writes the lexical entries of the messages ids (those still
// stored) in one transaction.
func (e *Engine) relex(ctx context.Context, ids []string) error {
	msgs, err := e.MessagesByID(ctx, "", ids...)
	if err != nil {
		return err
	}
	docs := make([]pgstore.LexicalDoc, len(msgs))
	for i := range msgs {
		docs[i] = e.lexicalDoc(&msgs[i])
	}
	return e.tx(ctx, func(tx *store.Tx) error {
		if err := pgstore.PutLexicalTx(ctx, tx, docs); err != nil {
			return fmt.Errorf("engine: index %d messages: %w", len(docs), err)
		}
		return nil
	})
}

// indexUnindexed writes the lexical entries of the stored messages that
// have none (stored by a build that did not write them), at Open. It
// returns how many it wrote.
func (e *Engine) indexUnindexed(ctx context.Context) (int, error) {
	done := 0
	for {
		ids, err := pgstore.Unindexed(ctx, e.pool, outboxBatch)
		if err != nil {
			return done, fmt.Errorf("engine: %w", err)
		}
		if len(ids) == 0 {
			return done, nil
		}
		if err := e.relex(ctx, ids); err != nil {
			return done, err
		}
		done += len(ids)
		if len(ids) < outboxBatch {
			return done, nil
		}
	}
}

// applyConns is how many pooled connections one tool application may hold
// at once on Postgres: the journal's key lock (a connection of its own,
// held while the tool runs), the tool's transaction and a read beside it.
const applyConns = 3

// applySlot waits, on Postgres, until fewer tool applications run in this
// engine than the pool can serve at once (applySlots: the pool's
// connections over applyConns), and returns the function that ends the
// application's turn. Without the bound, as many applications as the pool
// has connections each held one for the journal's key lock and waited
// forever for a second (TestPostgresConcurrentToolCalls). On SQLite it
// waits for nothing. Waiting honours ctx.
func (e *Engine) applySlot(ctx context.Context) (release func(), err error) {
	if e.applySlots == nil {
		return func() {}, nil
	}
	select {
	case e.applySlots <- struct{}{}:
		return func() { <-e.applySlots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
