package pgrecall

import (
	"context"

	"github.com/mnemo-go/mnemo/recall"
)

// SearchReranked runs q with recall's re-rank stage (recall.Reranked, the
// code Index.SearchReranked runs): the fused order's best rr.Depth
// candidates (Search, no range), the re-ranker within rr.Budget (the fused
// order stands when it fails or the budget runs out), the best TopK of
// the new order, then q's message range; Result.Retrieval.Rerank says
// which happened. No connection is held while the re-ranker runs. Errors
// are Search's, recall.ErrInvalidOptions when rr has no Reranker, and
// ctx's when it ends.
func (s *Searcher) SearchReranked(ctx context.Context, q recall.Query, rr recall.Rerank) (*recall.Result, error) {
	return recall.Reranked(ctx, rerankBackend{s}, q, rr)
}

// rerankBackend is the Searcher as recall's RerankBackend.
type rerankBackend struct{ s *Searcher }

func (b rerankBackend) Search(ctx context.Context, q recall.Query) (*recall.Result, error) {
	return b.s.Search(ctx, q)
}

// HitTexts reads the hits' messages (of q's resource only) and returns the
// ones still stored with the text each is matched as (recall.Doc.Text).
func (b rerankBackend) HitTexts(ctx context.Context, q recall.Query, hits []recall.Hit) ([]recall.Hit, []string, error) {
	v := newView(b.s, q, recall.Prepared{}, nil)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.MessageID
	}
	if len(ids) > 0 {
		if err := v.fetch(ctx, ids, 0); err != nil {
			return nil, nil, err
		}
	}
	kept := make([]recall.Hit, 0, len(hits))
	texts := make([]string, 0, len(hits))
	for _, h := range hits {
		if d := v.docs[h.MessageID]; d != nil {
			kept = append(kept, h)
			texts = append(texts, d.doc.Text())
		}
	}
	return kept, texts, nil
}

// Neighbours is the view's Neighbours for q (its resource and exclusion).
func (b rerankBackend) Neighbours(ctx context.Context, q recall.Query, thread string, from, to int64) ([]recall.Hit, error) {
	return newView(b.s, q, recall.Prepared{}, nil).Neighbours(ctx, thread, from, to)
}
