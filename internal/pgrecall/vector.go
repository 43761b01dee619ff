package pgrecall

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// statusSQL reads what a search's vector channel needs of its resource
// $1 and embedder $2: whether any outbox row owes an embedding there
// (op index or embed; outbox_by_resource), whether the embedder stored a
// vector there (embeddings_by_resource), and how many of the excluded
// ids $3 are its messages; the resource's messages and vectors are
// counted only when an embedding is owed (a CASE reaches an uncorrelated
// subquery, an InitPlan, only when its branch is taken), and 0 otherwise.
//
// Not counting them otherwise is exact, not an estimate: every message
// without a vector by the current embedder has an outbox row owing it.
// An append queues the row in its transaction, the drainer deletes it in
// the transaction that stores the vector, a vector found damaged is
// deleted with its message queued again in one transaction
// (msgstore.RequeueDamaged), and Open queues a row for every message that
// owes a vector by the current embedder without one (an embedder
// switched, vectors lost; engine.queueMissingEmbeddings), and reindex
// --vectors drops them and queues their rows in one transaction
// (msgstore.ReembedAll). An erasure deletes the messages and their
// vectors together.
const statusSQL = `WITH owed AS (SELECT EXISTS (SELECT 1 FROM outbox WHERE resource_id = $1 AND op IN ('index', 'embed')) AS yes)
SELECT (SELECT yes FROM owed),
	EXISTS (SELECT 1 FROM embeddings WHERE embedder = $2 AND resource_id = $1),
	CASE WHEN (SELECT yes FROM owed) THEN (SELECT count(*) FROM messages WHERE resource_id = $1) ELSE 0 END,
	CASE WHEN (SELECT yes FROM owed) THEN (SELECT count(*) FROM embeddings WHERE embedder = $2 AND resource_id = $1) ELSE 0 END,
	(SELECT count(*) FROM messages WHERE resource_id = $1 AND id = ANY($3))`

// vectorStatus returns the vector channel's status over the resource of
// v (recall.EmbeddedStatus: "ok" when no embedding is owed there, else
// the exact count of its messages not embedded yet), whether the
// embedder has any vector there, and how many excluded ids are the
// resource's messages.
func (s *Searcher) vectorStatus(ctx context.Context, v *view) (status string, embedded bool, excluded int, err error) {
	excl := make([]string, 0, len(v.q.Exclude))
	for id := range v.q.Exclude {
		excl = append(excl, id)
	}
	var owed bool
	var messages, vectors int
	if err := s.pool.QueryRow(ctx, statusSQL, v.q.ResourceID, s.emb.ID(), excl).Scan(&owed, &embedded, &messages, &vectors, &excluded); err != nil {
		return "", false, 0, fmt.Errorf("pgrecall: vector status of %s: %w", v.q.ResourceID, err)
	}
	status = recall.StatusOK
	if owed {
		status = recall.EmbeddedStatus(messages, vectors)
	}
	return status, embedded, excluded, nil
}

// vectorChannel returns up to pool allowed candidates at or above the
// threshold by cosine to the query vector, with the turn-context rule, as
// recall's vector channel does, and the channel's status (vectorStatus).
// Without a filter it asks for pool + the excluded messages present
// (exact); with one it ranks the allowed messages and the turns around
// them (rankVectors; under a broad filter the resource's, by the HNSW
// index, up to the pool-th the filter's SQL condition allows) and widens
// ×4 until pool allowed candidates are found, a candidate falls below
// the threshold or they are exhausted (fewer vectors than asked for).
func (s *Searcher) vectorChannel(ctx context.Context, v *view) ([]recall.Scored, string, error) {
	status, embedded, excluded, err := s.vectorStatus(ctx, v)
	if err != nil || !embedded {
		return nil, status, err
	}
	slack := -1
	if v.p.Filter == nil {
		slack = excluded
	}
	pool, th := v.poolSize(), v.p.Options.Threshold
	allowed := func(d *vdoc) bool { return d != nil && (!v.restricted() || v.allowed(d)) }
	n := pool + max(slack, 0)
	for {
		ranked, exhausted, err := s.rankVectors(ctx, v, n)
		if err != nil {
			return nil, "", err
		}
		var out []recall.Scored
		below := false
		for i, r := range ranked {
			if th != 0 && r.Score < th {
				below, ranked = true, ranked[:i]
				break
			}
			if allowed(v.docs[r.ID]) {
				out = append(out, r)
			}
		}
		if slack >= 0 || len(out) >= pool || below || exhausted {
			if err := v.ensure(ctx, idsOf(ranked), 2); err != nil {
				return nil, "", err
			}
			// Similarity of the turns around the ranked ones (addNeighbours).
			var around []string
			for _, r := range ranked {
				if d := v.docs[r.ID]; d != nil {
					around = append(around, d.prev, d.next)
				}
			}
			if err := v.ensureVectors(ctx, append(idsOf(ranked), around...)); err != nil {
				return nil, "", err
			}
			v.contextScores(out, ranked)
			out = v.addNeighbours(out, ranked, allowed)
			return firstN(out, pool), status, nil
		}
		n *= 4 // widen: the filter removed candidates
	}
}

// universeRankSQL ranks the vectors of embedder $2 of the messages $1 (a
// filter's, restrict's universe: the resource's, without repeats)
// nearest $3, the $4 nearest first, exactly: each read by the primary key
// (message_id, embedder), the ordering on the stored column, which no
// HNSW index serves (they index an expression, under a partial
// predicate), so the filter applies before the LIMIT and no approximate
// scan can return fewer rows than exist (issue 14).
//
// (OFFSET 0 keeps the lookup a subquery per id, which only the primary
// key serves: as a join, or with message_id = ANY($1), the planner read
// every vector of the embedder through embeddings_by_resource, or all
// 100,000 of a resource in a sequential scan, BENCHMARKS.md.)
const universeRankSQL = `SELECT u.id FROM unnest($1::text[]) u(id),
	LATERAL (SELECT e.vector FROM embeddings e WHERE e.message_id = u.id AND e.embedder = $2 OFFSET 0) e
ORDER BY e.vector <=> $3 LIMIT $4`

// rankVectors returns the n vectors of the scope nearest the query, best
// first by recall's exact cosine (ties by id), and whether they are all
// the scope's: an exact scan of the messages a filter allows and the
// turns around them (v.universe, universeRankSQL), pgstore.Nearest over
// the embedder's HNSW index for the resource, an exact scan of the
// thread's vectors for scope thread. Under a broad filter (v.broad) n
// counts the candidates its SQL condition allows (rankBroad). The ranked
// messages are fetched.
func (s *Searcher) rankVectors(ctx context.Context, v *view, n int) ([]recall.Scored, bool, error) {
	var ids []string
	switch {
	case v.universe != nil:
		// The filter's messages and the turns around them, scanned exactly.
		rows, err := s.pool.Query(ctx, universeRankSQL, v.universe, s.emb.ID(), pgvector.NewVector(v.qv), n)
		if err != nil {
			return nil, false, fmt.Errorf("pgrecall: nearest of the allowed messages: %w", err)
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, false, fmt.Errorf("pgrecall: nearest of the allowed messages: %w", err)
		}
	case v.broad:
		return s.rankBroad(ctx, v, n)
	case v.p.Thread == "":
		e, err := s.registered(ctx)
		if err != nil {
			return nil, false, err
		}
		if ids, _, err = s.nearest(ctx, e, v.q.ResourceID, v.qv, n, nil); err != nil {
			return nil, false, err
		}
	default:
		rows, err := s.pool.Query(ctx, `SELECT e.message_id FROM embeddings e JOIN messages m ON m.id = e.message_id
WHERE e.embedder = $1 AND e.resource_id = $2 AND m.thread_id = $3 ORDER BY e.vector <=> $4 LIMIT $5`,
			s.emb.ID(), v.q.ResourceID, v.p.Thread, pgvector.NewVector(v.qv), n)
		if err != nil {
			return nil, false, fmt.Errorf("pgrecall: nearest in thread %s: %w", v.p.Thread, err)
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, false, fmt.Errorf("pgrecall: nearest in thread %s: %w", v.p.Thread, err)
		}
	}
	return v.rankedVectors(ctx, ids, len(ids) < n)
}

// rankBroad is rankVectors under a broad filter: the resource's nearest
// by the HNSW index (broadSpan × n of them, each with whether the
// filter's SQL condition allows it), up to the n-th allowed; when the
// index returns fewer than asked (it stopped at hnsw.max_scan_tuples, or
// the resource holds fewer vectors), the exact scan of the allowed
// messages and the turns around them instead (restrictAll).
func (s *Searcher) rankBroad(ctx context.Context, v *view, n int) ([]recall.Scored, bool, error) {
	e, err := s.registered(ctx)
	if err != nil {
		return nil, false, err
	}
	limit := broadSpan * n
	ids, oks, err := s.nearest(ctx, e, v.q.ResourceID, v.qv, limit, v)
	if err != nil {
		return nil, false, err
	}
	if len(ids) < limit {
		if err := s.restrictAll(ctx, v); err != nil {
			return nil, false, err
		}
		return s.rankVectors(ctx, v, n)
	}
	ids, exhausted := trimAllowed(ids, oks, n, limit)
	return v.rankedVectors(ctx, ids, exhausted)
}

// rankedVectors fetches the ranked ids and the turns within two of each
// (what the context rule reads: contextScores, addNeighbours), in one
// read, and returns them by recall's cosine, best first, with exhausted.
func (v *view) rankedVectors(ctx context.Context, ids []string, exhausted bool) ([]recall.Scored, bool, error) {
	if err := v.ensure(ctx, ids, 2); err != nil {
		return nil, false, err
	}
	if err := v.ensureVectors(ctx, ids); err != nil {
		return nil, false, err
	}
	out := make([]recall.Scored, 0, len(ids))
	for _, id := range ids {
		if c, ok := v.cosine(v.docs[id]); ok {
			out = append(out, recall.Scored{ID: id, Score: c})
		}
	}
	sortScored(out)
	return out, exhausted, nil
}

// contextScores is recall's contextScores: a listed turn whose previous
// or next turn was ranked scores max(own, α × that turn's positive
// score, its exchange score).
func (v *view) contextScores(out, ranked []recall.Scored) {
	alpha := v.s.tuning.ContextWeight
	if alpha <= 0 {
		return
	}
	own := make(map[string]float64, len(ranked))
	for _, r := range ranked {
		own[r.ID] = r.Score
	}
	for i := range out {
		d := v.docs[out[i].ID]
		prev, next := v.context(d)
		for _, n := range []*vdoc{prev, next} {
			if n == nil {
				continue
			}
			if ns, ok := own[n.doc.ID]; ok && ns > 0 {
				out[i].Score = max(out[i].Score, alpha*ns)
			}
		}
		if x, ok := v.exchange(d, own[out[i].ID]); ok {
			out[i].Score = max(out[i].Score, x)
		}
	}
}

// exchange is recall's: d's score by the exchange rule, own its cosine —
// the query's cosine with the sum of d's vector and the vector of the
// turn before it (recall.ExchangeScore), at most that turn's cosine, when
// d answers the question it asked (recall.AnswersQuestion), both are
// embedded and the question's cosine is positive; false otherwise. The
// question's vector is read with the ranked turns' neighbours.
func (v *view) exchange(d *vdoc, own float64) (float64, bool) {
	t := v.s.tuning
	if t.ContextWeight <= 0 || t.NoExchange || d == nil || d.vec == nil {
		return 0, false
	}
	p := v.docs[d.prev]
	if p == nil || p.vec == nil || !recall.AnswersQuestion(&p.doc, &d.doc) {
		return 0, false
	}
	ps, _ := v.cosine(p)
	if ps <= 0 {
		return 0, false
	}
	return min(recall.ExchangeScore(own, ps, recall.Cosine(d.vec, p.vec)), ps), true
}

// addNeighbours is recall's addNeighbours for the vector channel: the
// turn after each ranked turn of positive score and, unless NoTurnAfter,
// the turn before, scored by Similarity (at or above the threshold), when
// allowed and not listed yet; the list is sorted again.
func (v *view) addNeighbours(out, ranked []recall.Scored, allowed func(*vdoc) bool) []recall.Scored {
	t := v.s.tuning
	if t.ContextWeight <= 0 || len(ranked) == 0 {
		return out
	}
	in := make(map[string]bool, len(out)+len(ranked))
	for _, c := range out {
		in[c.ID] = true
	}
	th := v.p.Options.Threshold
	for _, r := range ranked {
		d := v.docs[r.ID]
		if r.Score <= 0 || d == nil {
			continue
		}
		nbs := [2]string{d.next}
		if !t.NoTurnAfter {
			nbs[1] = d.prev
		}
		for _, id := range nbs {
			nb := v.docs[id]
			if nb == nil || in[id] || !allowed(nb) {
				continue
			}
			in[id] = true
			if sim, ok := v.Similarity(id); ok && (th == 0 || sim >= th) {
				out = append(out, recall.Scored{ID: id, Score: sim})
			}
		}
	}
	sortScored(out)
	return out
}

func idsOf(s []recall.Scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

// nearest is pgstore.Nearest in one round trip: the transaction, its
// iterative-scan setting and the search are sent as one pipelined batch
// (Nearest waits for each of the four). It returns the message ids,
// nearest first, and with check (a broad filter's search) whether each
// is allowed (view.allowedSQL; without, all true).
func (s *Searcher) nearest(ctx context.Context, e pgstore.Embedder, resource string, vec []float32, k int, check *view) ([]string, []bool, error) {
	typ := "vector"
	if e.Dims > pgstore.MaxVectorIndexDims {
		typ = "halfvec"
	}
	b := &sqlArgs{args: []any{resource, pgvector.NewVector(vec), k}}
	sql := fmt.Sprintf(`SELECT message_id, true FROM embeddings WHERE %s AND resource_id = $1 ORDER BY %s <=> $2::vector::%s(%d) LIMIT $3`,
		e.Predicate(), e.Expr(), typ, e.Dims)
	if check != nil {
		sql = fmt.Sprintf(`SELECT r.message_id, %s FROM (SELECT message_id, %s <=> $2::vector::%s(%d) AS d FROM embeddings
	WHERE %s AND resource_id = $1 ORDER BY d LIMIT $3) r
JOIN messages m ON m.id = r.message_id ORDER BY r.d, r.message_id`, check.allowedSQL(b), e.Expr(), typ, e.Dims, e.Predicate())
	}
	bt := &pgx.Batch{}
	bt.Queue(`BEGIN READ ONLY`)
	bt.Queue(`SET LOCAL hnsw.iterative_scan = strict_order`)
	var ids []string
	var oks []bool
	bt.Queue(sql, b.args...).Query(func(rows pgx.Rows) error {
		var id string
		var ok bool
		_, err := pgx.ForEachRow(rows, []any{&id, &ok}, func() error {
			ids, oks = append(ids, id), append(oks, ok)
			return nil
		})
		return err
	})
	bt.Queue(`COMMIT`)
	if err := s.pool.SendBatch(ctx, bt).Close(); err != nil {
		return nil, nil, fmt.Errorf("pgrecall: nearest of %s in %s: %w", e.Name, resource, err)
	}
	return ids, oks, nil
}
