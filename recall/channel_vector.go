package recall

import (
	"context"
	"fmt"
)

// The vector channel: the query's embedding against the resource's vectors,
// through the shard's int8 index (vecindex.go) or chromem-go's exact scan
// (Tuning.ExactVectors), with the turn-context rule (context.go).

// vectorChannel returns up to q.pool allowed candidates at or above the
// threshold, ranked by cosine similarity to the query vector q.qv. slack as
// in lexicalChannel.
func (ix *Index) vectorChannel(ctx context.Context, q *channelQuery) ([]scored, error) {
	s := q.s
	count := s.vx.len()
	if count == 0 {
		return nil, nil
	}
	rank := func(n int) ([]scored, error) { return ix.vectorRank(ctx, s, q.qv, q.thread, n) }
	if s.col == nil {
		rank = ix.indexRank(q)
	}
	allowed := func(e *entry) bool { return !q.restricted || q.allowed(e) }
	n := min(q.pool+max(q.slack, 0), count)
	var out, ranked []scored
	if q.scr != nil {
		out, ranked = q.scr.vec[:0], q.scr.ranked[:0]
		defer func() { q.scr.vec, q.scr.ranked = out[:0], ranked[:0] }()
	}
	for {
		rs, err := rank(n)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		out, ranked = out[:0], ranked[:0]
		below := false
		for _, r := range rs {
			if q.threshold != 0 && r.score < q.threshold {
				below = true
				break
			}
			ranked = append(ranked, r)
			if allowed(r.entry(s)) {
				out = append(out, r)
			}
		}
		if q.slack >= 0 || len(out) >= q.pool || below || n == count || len(rs) < n {
			ix.contextScores(s, out, ranked, q.vq, q.scr)
			// A neighbour that cannot reach the first q.pool is not
			// scored (vecrescore.go): the list is the same.
			floor, bound := poolFloor(out, q.pool), ix.similarityBound(s, q.vq)
			out = ix.addNeighbours(s, q.scr, out, ranked, allowed, func(e *entry) (float64, bool) {
				if bound != nil && neighbourBound && bound(e) < floor {
					return 0, false
				}
				sim, ok := ix.similarity(s, e, q.vq)
				return sim, ok && (q.threshold == 0 || sim >= q.threshold)
			})
			return firstN(out, q.pool), nil
		}
		n = min(4*n, count) // widen: the filter removed candidates
	}
}

// vectorRank returns the n vectors of the scope most similar to qv by
// chromem-go's exact scan of the collection (Tuning.ExactVectors).
func (ix *Index) vectorRank(ctx context.Context, s *shard, qv []float32, thread string, n int) ([]scored, error) {
	var where map[string]string
	if thread != "" {
		where = map[string]string{"thread": thread}
	}
	rs, err := s.col.QueryEmbedding(ctx, qv, n, where, nil)
	if err != nil {
		return nil, err
	}
	out := make([]scored, len(rs))
	for i, r := range rs {
		out[i] = scored{id: r.ID, score: float64(r.Similarity)}
	}
	return out, nil
}

// indexRank returns the ranking function of the shard's vector index. With
// a filter (slack < 0) it pre-filters: only the allowed turns and the turns
// before and after them (which lift them, contextScores) are ranked, so the
// filter never empties the pool; the thread scope likewise.
func (ix *Index) indexRank(q *channelQuery) func(int) ([]scored, error) {
	s := q.s
	var keep func(*entry) bool
	switch {
	case q.slack < 0:
		mark := make([]bool, s.ords)
		markAround := func(e *entry) {
			if e.prev != nil {
				mark[e.prev.ord] = true
			}
			if nx := s.after(e); nx != nil {
				mark[nx.ord] = true
			}
		}
		for _, e := range s.vx.ents {
			if q.allowed(e) {
				mark[e.ord] = true
				markAround(e)
			}
		}
		if s.docs.len() > s.vx.len() {
			// An allowed turn not embedded yet is still lifted by the
			// turns around it (addNeighbours), as without a filter.
			for _, e := range s.docs.all() {
				if e.vslot == 0 && q.allowed(e) {
					markAround(e)
				}
			}
		}
		keep = func(e *entry) bool { return mark[e.ord] }
	case q.thread != "":
		thread := q.thread
		keep = func(e *entry) bool { return e.doc.ThreadID == thread }
	}
	vq := q.vq
	if qn := normalised(q.qv); &qn[0] != &q.qv[0] {
		vq = s.vx.query(qn)
	}
	return func(n int) ([]scored, error) { return s.vx.searchQuery(q.ctx, vq, n, keep) }
}

// vectorStatus is the vector channel's status after a successful search
// (caller holds s.mu): "ok", or "degraded: …" while messages are not
// embedded, naming the damaged stored embeddings being embedded again.
func vectorStatus(s *shard) string {
	missing := s.docs.len() - s.vx.len()
	if missing <= 0 {
		return "ok"
	}
	if n := len(s.damaged); n > 0 {
		return fmt.Sprintf("degraded: %d of %d messages not embedded yet (%d stored embeddings damaged, being embedded again)", missing, s.docs.len(), n)
	}
	return fmt.Sprintf("degraded: %d of %d messages not embedded yet", missing, s.docs.len())
}
