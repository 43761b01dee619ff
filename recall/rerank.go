package recall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The optional re-rank stage: a Reranker (a cross-encoder or an LLM behind
// an OpenAI-compatible endpoint, rerank_openai.go) reads the query with
// the text of each of the fused order's best candidates and scores them
// again. It is off unless the caller configures one (engine.Config.Rerank):
// it costs a network round trip per search, and the fused order already
// holds the evidence in its top 10 eight times in 10 on the dev sets. The
// engine runs it outside every lock of the Index (a slow endpoint must not
// hold writers back), under a latency budget after which the fused order
// stands, and records in Retrieval.Rerank that it ran.

// Reranker scores passages against a query.
//
// Implementations are safe for concurrent use.
type Reranker interface {
	// ID names the re-ranker and its model, e.g. "rerank:bge-reranker-v2-m3"
	// or "chat:gpt-4o-mini"; the memctx record names it.
	ID() string
	// Rerank returns one relevance score per passage, in order; larger is
	// more relevant, and scores compare only within one call. It returns
	// an error (wrapping ErrRerank), and no scores, when the endpoint
	// fails or answers with something else than one score per passage, and
	// ctx's error when ctx ends first.
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

// ErrRerank is returned (wrapped with the cause) by a Reranker whose
// endpoint fails or answers with something that is not one score per
// passage.
var ErrRerank = errors.New("recall: re-rank failed")

// Re-rank statuses (RerankStatus.Status).
const (
	// RerankOK: the re-ranker's order was used.
	RerankOK = "ok"
	// RerankTimeout: the budget ran out first; the fused order stands.
	RerankTimeout = "timeout: fused order kept"
)

// RerankStatus says how the re-rank stage of a search fared.
type RerankStatus struct {
	// Reranker is the Reranker's ID.
	Reranker string `json:"reranker"`
	// Status is RerankOK, RerankTimeout, or "unavailable: <cause>; fused
	// order kept" when the endpoint failed.
	Status string `json:"status"`
	// Candidates is how many of the fused order's best candidates were
	// sent (the depth, or fewer when the search found fewer).
	Candidates int `json:"candidates"`
	// Millis is how long the stage took, in milliseconds: the round trip,
	// or the budget when it ran out.
	Millis float64 `json:"ms"`
}

// Budgeted calls r.Rerank with at most budget of time (none when budget ≤
// 0) and returns its scores, or nil with the status that says why the
// fused order stands. It returns ctx's error when ctx itself ended (the
// caller's cancellation, not the budget).
func Budgeted(ctx context.Context, r Reranker, budget time.Duration, query string, passages []string) ([]float64, RerankStatus, error) {
	st := RerankStatus{Reranker: r.ID(), Candidates: len(passages)}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if budget > 0 {
		rctx, cancel = context.WithTimeout(ctx, budget)
	}
	defer cancel()
	start := time.Now()
	scores, err := r.Rerank(rctx, query, passages)
	st.Millis = float64(time.Since(start).Microseconds()) / 1000
	switch {
	case ctx.Err() != nil:
		return nil, st, ctx.Err()
	case err == nil && len(scores) != len(passages):
		st.Status = unavailable("the re-ranker returned a wrong number of scores") + "; fused order kept"
		return nil, st, nil
	case err == nil:
		st.Status = RerankOK
		return scores, st, nil
	case rctx.Err() != nil:
		st.Status = RerankTimeout
		return nil, st, nil
	default:
		st.Status = unavailable(err.Error()) + "; fused order kept"
		return nil, st, nil
	}
}

// Rerank configures the re-rank stage of SearchReranked.
type Rerank struct {
	// Reranker scores the candidates; required.
	Reranker Reranker
	// Depth is how many of the fused order's best candidates are sent;
	// 0 means DefaultRerankDepth. Always at least the query's TopK.
	Depth int
	// Budget is the most time the stage may take; past it the fused
	// order stands. 0 means DefaultRerankBudget; negative means none.
	Budget time.Duration
}

// Defaults for Rerank fields left zero.
const (
	// DefaultRerankDepth: the fused top 20 hold the evidence of about 85 %
	// of the dev sets' questions that the top 100 hold (docs/recall.md).
	DefaultRerankDepth = 20
	// DefaultRerankBudget is what an agent turn can afford to wait for a
	// better order: a cross-encoder on a GPU answers 20 passages in tens of
	// milliseconds, a hosted LLM in about a second.
	DefaultRerankBudget = 1500 * time.Millisecond
)

// SearchReranked runs q (Search) with a re-rank stage: the fused order's
// best rr.Depth candidates (no range yet) are re-scored by rr.Reranker,
// outside every lock of the Index, within rr.Budget; the best q's TopK of
// the new order are kept (a hit's Score becomes the re-ranker's score) and
// expanded by q's message range. When the re-ranker fails or the budget
// runs out, the fused order's TopK stand. Result.Retrieval.Rerank says
// which happened. Errors are Search's, and ctx's when it ends.
func (ix *Index) SearchReranked(ctx context.Context, q Query, rr Rerank) (*Result, error) {
	return Reranked(ctx, indexBackend{ix}, q, rr)
}

// RerankBackend is what the re-rank stage needs of a backend (Reranked):
// its search, the text of the messages it found and their neighbours.
type RerankBackend interface {
	// Search runs q (Index.Search's semantics).
	Search(ctx context.Context, q Query) (*Result, error)
	// HitTexts returns the hits whose message q's resource still holds
	// (one removed since the search is left out), in order, and the text
	// each is matched as (Doc.Text: the speaker and the content).
	HitTexts(ctx context.Context, q Query, hits []Hit) ([]Hit, []string, error)
	// Neighbours returns the messages of thread in q's resource whose seq
	// lies in [from, to], in seq order, as hits (Corpus.Neighbours),
	// leaving out q's excluded messages.
	Neighbours(ctx context.Context, q Query, thread string, from, to int64) ([]Hit, error)
}

// Reranked is SearchReranked over any backend b (the SQLite backend's
// Index, the Postgres searcher): b's search for the fused order's best
// rr.Depth candidates (at least q's TopK; no range), their texts, the
// re-ranker within its budget (the fused order stands when it fails or the
// budget runs out), the best TopK of the new order, then q's message
// range. It returns ErrInvalidOptions when rr has no Reranker, b's errors,
// and ctx's when it ends.
func Reranked(ctx context.Context, b RerankBackend, q Query, rr Rerank) (*Result, error) {
	if rr.Reranker == nil {
		return nil, fmt.Errorf("%w: a re-rank stage needs a Reranker", ErrInvalidOptions)
	}
	o, err := q.Options.Resolve()
	if err != nil {
		return nil, err
	}
	deep := q
	deep.Options = o
	deep.Options.TopK = min(max(o.TopK, cmp.Or(rr.Depth, DefaultRerankDepth)), MaxTopK)
	deep.Options.MessageRange = Range{}
	res, err := b.Search(ctx, deep)
	if err != nil {
		return nil, err
	}
	SortByRank(res.Hits)
	cands, texts, err := b.HitTexts(ctx, q, res.Hits)
	if err != nil {
		return nil, err
	}
	budget := cmp.Or(rr.Budget, DefaultRerankBudget)
	scores, st, err := Budgeted(ctx, rr.Reranker, budget, q.Text, texts)
	if err != nil {
		return nil, err
	}
	hits := rerankHits(cands, scores, o.TopK)
	lookup := func(th string, from, to int64) ([]Hit, error) { return b.Neighbours(ctx, q, th, from, to) }
	if res.Hits, err = expandRange(hits, o.MessageRange, lookup); err != nil {
		return nil, err
	}
	res.Retrieval.Rerank = &st
	return res, nil
}

// indexBackend is the Index as a RerankBackend: each read takes the
// resource's shard read-locked, and none is held while the re-ranker runs.
type indexBackend struct{ ix *Index }

func (b indexBackend) Search(ctx context.Context, q Query) (*Result, error) {
	return b.ix.Search(ctx, q)
}

func (b indexBackend) HitTexts(ctx context.Context, q Query, hits []Hit) ([]Hit, []string, error) {
	type kt struct {
		kept  []Hit
		texts []string
	}
	r, err := retryFaults(b.ix, func() (kt, error) { // snapshot_fault.go
		kept, texts, err := b.hitTexts(ctx, q, hits)
		return kt{kept, texts}, err
	})
	return r.kept, r.texts, err
}

func (b indexBackend) hitTexts(ctx context.Context, q Query, hits []Hit) ([]Hit, []string, error) {
	s, err := b.ix.lockedShard(ctx, q.ResourceID)
	if err != nil {
		return nil, nil, err
	}
	defer s.mu.RUnlock()
	kept := make([]Hit, 0, len(hits))
	texts := make([]string, 0, len(hits))
	for _, h := range hits {
		if e := s.docs.get(h.MessageID); e != nil {
			kept = append(kept, h)
			// A copy, like hitID's: the content lies in the shard's
			// arena or snapshot mapping, which an unload releases while
			// the re-ranker (outside every lock, perhaps past the budget)
			// still reads the passage.
			texts = append(texts, strings.Clone(s.soundContent(e).doc.Text()))
		}
	}
	return kept, texts, nil
}

func (b indexBackend) Neighbours(ctx context.Context, q Query, thread string, from, to int64) ([]Hit, error) {
	return retryFaults(b.ix, func() ([]Hit, error) { // snapshot_fault.go
		s, err := b.ix.lockedShard(ctx, q.ResourceID)
		if err != nil {
			return nil, err
		}
		defer s.mu.RUnlock()
		return s.neighbourHits(q.Exclude)(thread, from, to)
	})
}

// rerankHits returns the best topK of hits (in rank order) by scores (nil:
// the fused order stands), ties in the fused order, ranked again from 1;
// with scores each hit's Score is its re-rank score.
func rerankHits(hits []Hit, scores []float64, topK int) []Hit {
	out := slices.Clone(hits)
	if scores != nil {
		for i := range out {
			out[i].Score = scores[i]
		}
		slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	}
	out = out[:min(topK, len(out))]
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
